// LpNormalize in lpnorm's operation set: y = x / ||x||_p over `axes`, computed by
// lpnorm::normalize. The attributes are lpnorm::NormalizeParams (axes, p, eps, eps_mode), so
// ONNX LpNormalization (through the ONNX frontend conversion), OpenVINO NormalizeL2 (eps_mode
// sum_add or sum_max) and PyTorch's F.normalize (norm_max) all map onto it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <openvino/op/op.hpp>

#include "lpnorm/lpnorm.h"

namespace lpnorm::ov_extension {

class LpNormalize : public ov::op::Op {
public:
    OPENVINO_OP("LpNormalize", "lpnorm");

    LpNormalize() = default;
    LpNormalize(const ov::Output<ov::Node> &x, const NormalizeParams &params);

    void validate_and_infer_types() override;
    bool visit_attributes(ov::AttributeVisitor &visitor) override;
    std::shared_ptr<ov::Node> clone_with_new_inputs(const ov::OutputVector &inputs) const override;
    bool has_evaluate() const override;
    bool evaluate(ov::TensorVector &outputs, const ov::TensorVector &inputs) const override;

    // The attributes as lpnorm's parameters; throws ov::Exception on an unknown eps_mode.
    NormalizeParams params() const;

private:
    // IR attributes: axes, p, eps, eps_mode ("none", "norm_max", "sum_add", "sum_max");
    // meanings as in lpnorm::NormalizeParams.
    std::vector<int64_t> m_axes;
    double m_p = 2.0;
    double m_eps = 0.0;
    std::string m_eps_mode = "none";
};

}  // namespace lpnorm::ov_extension
