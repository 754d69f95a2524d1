// ONNX ReduceL1 / ReduceL2 onto lpnorm ReduceLp.
//
// Opset forms: opsets 1, 11 and 13 take `axes` as an attribute; opset 18 takes it as an
// optional second input and adds noop_with_empty_axes. lpnorm ReduceLp holds its axes as an
// attribute, so that input is read when the model is read: a constant, or operations on
// constants folded (Cast(Constant)). Axes known only at inference (a graph input, a computed
// tensor) leave the node to OpenVINO's own ReduceL1/ReduceL2 (opset 4), as without lpnorm. A
// node with the axes attribute reads as opset 13 (which also allows bfloat16); any other as
// opset 18. Without axes, both reduce every axis unless noop_with_empty_axes = 1.
#include <memory>
#include <optional>

#include <openvino/op/reduce_l1.hpp>
#include <openvino/op/reduce_l2.hpp>

#include "lpnorm/onnx.h"
#include "onnx_attributes.hpp"
#include "onnx_conversions.hpp"
#include "reduce_lp.hpp"

namespace lpnorm::ov_extension {

namespace {

// OpenVINO's own reduction, for axes that only inference knows.
ov::OutputVector openvino_reduce(const ov::frontend::NodeContext &node, double p) {
    const bool keepdims = onnx_node::attribute<int64_t>(node, "keepdims", "INT").value_or(1) != 0;
    std::shared_ptr<ov::Node> op;
    if (p == 1.0) {
        op = std::make_shared<ov::op::v4::ReduceL1>(node.get_input(0), node.get_input(1), keepdims);
    } else {
        op = std::make_shared<ov::op::v4::ReduceL2>(node.get_input(0), node.get_input(1), keepdims);
    }
    op->set_friendly_name(node.get_name());
    return {op->output(0)};
}

ov::OutputVector convert_onnx_reduce(const ov::frontend::NodeContext &node, double p) {
    using onnx_node::attribute;
    lpnorm::onnx::ReduceAttributes a;
    const std::optional<std::vector<int64_t>> axes_attribute =
        attribute<std::vector<int64_t>>(node, "axes", "INTS");
    const bool axes_input = onnx_node::has_input(node, 1);
    OPENVINO_ASSERT(
        !(axes_attribute && axes_input), onnx_node::describe(node),
        ": axes is given both as an attribute (opsets 1-13) and as an input (opset 18)");
    a.opset = axes_attribute ? 13 : 18;
    if (axes_attribute) {
        a.axes = *axes_attribute;
    } else if (axes_input) {
        std::optional<std::vector<int64_t>> axes = onnx_node::folded_ints(node, 1, "axes");
        if (!axes) {
            return openvino_reduce(node, p);
        }
        a.axes = *axes;
        // The ONNX frontend turns an empty initializer (shape [0]) into a scalar Constant, so a
        // rank-0 axes input means "no axes" (the frontend's own ReduceL2 reads it so too).
        if (node.get_input(1).get_partial_shape().rank().get_length() == 0) {
            a.axes.clear();
        }
    }
    a.keepdims = attribute<int64_t>(node, "keepdims", "INT").value_or(1);
    a.noop_with_empty_axes = attribute<int64_t>(node, "noop_with_empty_axes", "INT").value_or(0);

    ReduceParams params;
    onnx_node::check(lpnorm::onnx::detail::to_params(node.get_op_type().c_str(),
                                                     onnx_node::dtype_of(node, 0), a, p, &params),
                     node);
    auto op = std::make_shared<ReduceLp>(node.get_input(0), params);
    op->set_friendly_name(node.get_name());
    return {op->output(0)};
}

}  // namespace

ov::OutputVector convert_onnx_reduce_l1(const ov::frontend::NodeContext &node) {
    return convert_onnx_reduce(node, 1.0);
}

ov::OutputVector convert_onnx_reduce_l2(const ov::frontend::NodeContext &node) {
    return convert_onnx_reduce(node, 2.0);
}

}  // namespace lpnorm::ov_extension
