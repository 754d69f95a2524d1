// ONNX LpPool onto lpnorm LpPool.
//
// Opset forms: p is a FLOAT attribute in opset 1 and an INT from opset 2; dilations and
// ceil_mode exist from opset 18; opset 22 adds bfloat16 and the rule that drops a ceil_mode
// window starting in the end padding, which lpnorm's adapter applies to opset 18 too. A FLOAT p
// therefore reads as opset 1 and an INT (or absent) p as opset 22.
#include <memory>

#include "lp_pool.hpp"
#include "lpnorm/onnx.h"
#include "onnx_attributes.hpp"
#include "onnx_conversions.hpp"

namespace lpnorm::ov_extension {

ov::OutputVector convert_onnx_lp_pool(const ov::frontend::NodeContext &node) {
    using onnx_node::attribute;
    using Ints = std::vector<int64_t>;
    lpnorm::onnx::LpPoolAttributes a;
    a.opset = 22;
    const ov::Any p = node.get_attribute_as_any("p");
    if (p.is<double>()) {
        a.opset = 1;
        a.p = p.as<double>();
    } else if (p.is<int64_t>()) {
        a.p = static_cast<double>(p.as<int64_t>());
    } else {
        OPENVINO_ASSERT(p.empty(), onnx_node::describe(node),
                        ": attribute p is neither a FLOAT (opset 1) nor an INT (opset 2+)");
    }
    a.auto_pad = attribute<std::string>(node, "auto_pad", "STRING").value_or("NOTSET");
    a.kernel_shape = attribute<Ints>(node, "kernel_shape", "INTS").value_or(Ints{});
    a.strides = attribute<Ints>(node, "strides", "INTS").value_or(Ints{});
    a.pads = attribute<Ints>(node, "pads", "INTS").value_or(Ints{});
    a.dilations = attribute<Ints>(node, "dilations", "INTS").value_or(Ints{});
    a.ceil_mode = attribute<int64_t>(node, "ceil_mode", "INT").value_or(0);

    const int rank = onnx_node::rank_of(node, 0, static_cast<int>(a.kernel_shape.size()) + 2);
    PoolParams params;
    onnx_node::check(
        lpnorm::onnx::detail::to_pool_params(rank, onnx_node::dtype_of(node, 0), a, &params), node);
    auto op = std::make_shared<LpPool>(node.get_input(0), params);
    op->set_friendly_name(node.get_name());
    return {op->output(0)};
}

}  // namespace lpnorm::ov_extension
