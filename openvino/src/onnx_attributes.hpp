// Reading ONNX node attributes and inputs inside a conversion extension.
//
// The ONNX frontend hands a conversion the node, not the model's opset: one conversion serves
// every opset of an op type. The opset-dependent forms are visible in the node itself (the
// type of an attribute, whether an input is present), and the conversions read them there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <openvino/core/except.hpp>
#include <openvino/frontend/node_context.hpp>

#include "lpnorm/lpnorm.h"

namespace lpnorm::ov_extension::onnx_node {

// "ONNX <op type> '<node name>'", the prefix of every conversion error.
std::string describe(const ov::frontend::NodeContext &node);

// The attribute `name` when the node has it, as T (int64_t for INT, double for FLOAT,
// std::string for STRING, std::vector<int64_t> for INTS); throws when it has another type.
template <typename T>
std::optional<T> attribute(const ov::frontend::NodeContext &node, const std::string &name,
                           const char *expected_type) {
    const ov::Any value = node.get_attribute_as_any(name);
    if (value.empty()) {
        return std::nullopt;
    }
    OPENVINO_ASSERT(value.is<T>(), describe(node), ": attribute ", name, " is not of type ",
                    expected_type);
    return value.as<T>();
}

// True when input `index` exists and is not an omitted optional input (an empty name).
bool has_input(const ov::frontend::NodeContext &node, size_t index);

// The values of input `index` when it is a constant or folds into one (an initializer, a
// Constant node, or operations on constants such as Cast(Constant)); nullopt otherwise.
// Throws when the values are not integers.
std::optional<std::vector<int64_t>> folded_ints(const ov::frontend::NodeContext &node, size_t index,
                                                const char *input_name);

// Rank and dtype of input `index` for lpnorm's ONNX adapters: `fallback_rank` when the rank is
// unknown, float32 when the element type is unknown or not one of lpnorm's (the operation
// checks the type again when it is known).
int rank_of(const ov::frontend::NodeContext &node, size_t index, int fallback_rank);
DType dtype_of(const ov::frontend::NodeContext &node, size_t index);

// Throws ov::Exception with describe(node) and lpnorm's message when `status` is an error.
void check(const Status &status, const ov::frontend::NodeContext &node);

}  // namespace lpnorm::ov_extension::onnx_node
