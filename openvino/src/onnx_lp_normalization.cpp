// ONNX LpNormalization (opsets 1 and 22, which differ only in bfloat16) onto lpnorm LpNormalize.
// The node reads as opset 22; lpnorm/onnx.h maps the attributes (p 1 or 2, one axis, 0 where
// the norm is 0).
#include <memory>

#include "lp_normalize.hpp"
#include "lpnorm/onnx.h"
#include "onnx_attributes.hpp"
#include "onnx_conversions.hpp"

namespace lpnorm::ov_extension {

ov::OutputVector convert_onnx_lp_normalization(const ov::frontend::NodeContext &node) {
    using onnx_node::attribute;
    lpnorm::onnx::LpNormalizationAttributes a;
    a.opset = 22;
    a.axis = attribute<int64_t>(node, "axis", "INT").value_or(-1);
    a.p = attribute<int64_t>(node, "p", "INT").value_or(2);
    NormalizeParams params;
    onnx_node::check(
        lpnorm::onnx::detail::to_normalize_params(onnx_node::dtype_of(node, 0), a, &params), node);
    auto op = std::make_shared<LpNormalize>(node.get_input(0), params);
    op->set_friendly_name(node.get_name());
    return {op->output(0)};
}

}  // namespace lpnorm::ov_extension
