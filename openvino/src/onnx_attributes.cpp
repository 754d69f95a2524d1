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

namespace {

// `output` as a Constant: itself, or its node evaluated on its inputs folded the same way
// (a few levels deep: the Converts and Unsqueezes an exporter puts around a constant).
std::shared_ptr<ov::op::v0::Constant> fold(const ov::Output<ov::Node> &output, int depth) {
    const std::shared_ptr<ov::Node> node = output.get_node_shared_ptr();
    if (auto constant = ov::as_type_ptr<ov::op::v0::Constant>(node)) {
        return constant;
    }
    if (depth == 0 || node->get_input_size() == 0) {
        return nullptr;
    }
    ov::OutputVector inputs;
    for (const ov::Output<ov::Node> &input : node->input_values()) {
        std::shared_ptr<ov::op::v0::Constant> folded = fold(input, depth - 1);
        if (folded == nullptr) {
            return nullptr;
        }
        inputs.push_back(folded->output(0));
    }
    ov::OutputVector results(node->get_output_size());
    if (!node->constant_fold(results, inputs)) {
        return nullptr;
    }
    return ov::as_type_ptr<ov::op::v0::Constant>(
        results.at(output.get_index()).get_node_shared_ptr());
}

}  // namespace

std::optional<std::vector<int64_t>> folded_ints(const ov::frontend::NodeContext &node, size_t index,
                                                const char *input_name) {
    const std::shared_ptr<ov::op::v0::Constant> constant =
        fold(node.get_input(static_cast<int>(index)), 4);
    if (constant == nullptr) {
        return std::nullopt;
    }
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
