// ReduceLp in lpnorm's operation set: y = (sum over `axes` of |x|^p)^(1/p), computed by
// lpnorm::reduce. The attributes are lpnorm::ReduceParams: axes (an attribute, so the
// reduction is known when the model is compiled), p, keep_dims and what empty axes mean. ONNX
// ReduceL1/ReduceL2 map onto it through the ONNX frontend conversion.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <openvino/op/op.hpp>

#include "lpnorm/lpnorm.h"

namespace lpnorm::ov_extension {

class ReduceLp : public ov::op::Op {
public:
    OPENVINO_OP("ReduceLp", "lpnorm");

    ReduceLp() = default;
    ReduceLp(const ov::Output<ov::Node> &x, const ReduceParams &params);

    void validate_and_infer_types() override;
    bool visit_attributes(ov::AttributeVisitor &visitor) override;
    std::shared_ptr<ov::Node> clone_with_new_inputs(const ov::OutputVector &inputs) const override;
    bool has_evaluate() const override;
    bool evaluate(ov::TensorVector &outputs, const ov::TensorVector &inputs) const override;

    // The attributes as lpnorm's parameters; throws ov::Exception on an unknown enum name.
    ReduceParams params() const;

private:
    // IR attributes: axes, p, keep_dims, empty_axes ("identity", "reduce_all",
    // "elementwise"); meanings as in lpnorm::ReduceParams.
    std::vector<int64_t> m_axes;
    double m_p = 2.0;
    bool m_keep_dims = false;
    std::string m_empty_axes = "reduce_all";
};

}  // namespace lpnorm::ov_extension
