// LpPool in lpnorm's operation set: y = (sum over each window's in-bounds taps of |x|^p)^(1/p)
// on an N, C, D1[, D2[, D3]] tensor, computed by lpnorm::pool. The attributes are
// lpnorm::PoolParams, so every ecosystem's pooling maps onto it (ONNX LpPool through the ONNX
// frontend conversion; PyTorch's lp_pool with mode "signed" and overhang "rescale").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <openvino/op/op.hpp>

#include "lpnorm/lpnorm.h"

namespace lpnorm::ov_extension {

class LpPool : public ov::op::Op {
public:
    OPENVINO_OP("LpPool", "lpnorm");

    LpPool() = default;
    LpPool(const ov::Output<ov::Node> &x, const PoolParams &params);

    void validate_and_infer_types() override;
    bool visit_attributes(ov::AttributeVisitor &visitor) override;
    std::shared_ptr<ov::Node> clone_with_new_inputs(const ov::OutputVector &inputs) const override;
    bool has_evaluate() const override;
    bool evaluate(ov::TensorVector &outputs, const ov::TensorVector &inputs) const override;

    // The attributes as lpnorm's parameters; throws ov::Exception on an unknown enum name.
    PoolParams params() const;

private:
    // IR attributes: kernel, strides, dilations, pads (all begins, then all ends), auto_pad
    // ("notset", "same_upper", "same_lower", "valid"), ceil_mode, p, mode ("abs", "signed"),
    // overhang ("sum", "rescale"); meanings as in lpnorm::PoolParams.
    std::vector<int64_t> m_kernel, m_strides, m_dilations, m_pads;
    std::string m_auto_pad = "notset";
    bool m_ceil_mode = false;
    double m_p = 2.0;
    std::string m_mode = "abs";
    std::string m_overhang = "sum";
};

}  // namespace lpnorm::ov_extension
