#include "onnx_attributes.hpp"

#include <openvino/op/constant.hpp>

#include "tensor_bridge.hpp"

namespace lpnorm::ov_extension::onnx_node {

std::string describe(const ov::frontend::NodeContext &node) {
    return "ONNX " + node.get_op_type() + " '" + node.get_name() + "'";
}

bool has_input(const ov::frontend::NodeContext &node, size_t index) {
    if (index >= node.get_input_size()) {
        return false;
    }
    // The ONNX frontend stands a "NullNode" in for an omitted optional input.
    const ov::Output<ov::Node> input = node.get_input(static_cast<int>(index));
    return std::string(input.get_node()->get_type_name()) != "NullNode";
}

std::vector<int64_t> constant_ints(const ov::frontend::NodeContext &node, size_t index,
                                   const char *input_name) {
    const ov::Output<ov::Node> input = node.get_input(static_cast<int>(index));
    const auto constant = ov::as_type_ptr<ov::op::v0::Constant>(input.get_node_shared_ptr());
    OPENVINO_ASSERT(constant != nullptr, describe(node), ": input ", input_name,
                    " must be a constant (an initializer or a Constant node) for lpnorm, which "
                    "fixes it when the model is read; it comes from ",
                    input.get_node()->get_type_name(), " '", input.get_node()->get_friendly_name(),
                    "'");
    OPENVINO_ASSERT(constant->get_element_type().is_integral_number(), describe(node), ": input ",
                    input_name, " has element type ", constant->get_element_type(),
                    ", not an integer type");
    return constant->cast_vector<int64_t>();
}

int rank_of(const ov::frontend::NodeContext &node, size_t index, int fallback_rank) {
    const ov::PartialShape shape = node.get_input(static_cast<int>(index)).get_partial_shape();
    return shape.rank().is_static() ? static_cast<int>(shape.rank().get_length()) : fallback_rank;
}

DType dtype_of(const ov::frontend::NodeContext &node, size_t index) {
    DType dtype = DType::float32;
    if (!to_dtype(node.get_input(static_cast<int>(index)).get_element_type(), &dtype)) {
        dtype = DType::float32;
    }
    return dtype;
}

void check(const Status &status, const ov::frontend::NodeContext &node) {
    if (!status.ok()) {
        OPENVINO_THROW("lpnorm: ", describe(node), ": ", status.message());
    }
}

}  // namespace lpnorm::ov_extension::onnx_node
