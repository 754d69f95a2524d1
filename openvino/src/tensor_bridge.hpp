// Conversions between OpenVINO's types and lpnorm's: element types, tensors, shapes and
// error statuses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <openvino/core/node.hpp>
#include <openvino/core/partial_shape.hpp>
#include <openvino/core/type/element_type.hpp>
#include <openvino/runtime/tensor.hpp>

#include "lpnorm/lpnorm.h"

namespace lpnorm::ov_extension {

// The lpnorm dtype of an OpenVINO element type; false when lpnorm has none for it.
bool to_dtype(const ov::element::Type &type, DType *dtype);

// A view of `tensor`'s memory (host memory, element strides from OpenVINO's byte strides).
// Throws ov::Exception when the element type is not one of lpnorm's or a stride is not a
// whole number of elements.
Tensor to_lpnorm(const ov::Tensor &tensor);

std::vector<int64_t> to_int64(const ov::Shape &shape);
ov::Shape to_shape(const std::vector<int64_t> &dims);

// Throws ov::Exception naming `node` and carrying lpnorm's message when `status` is an error.
void check(const Status &status, const ov::Node &node);

// evaluate() of a one-input, one-output operation: sizes the output with `output_shape`, then
// runs `op` into it (lpnorm's pool/pool_output_shape, reduce/reduce_output_shape, ...).
template <typename Params>
bool evaluate_one(const ov::Node &node, ov::TensorVector &outputs, const ov::TensorVector &inputs,
                  const Params &params,
                  Status (*output_shape)(const std::vector<int64_t> &, const Params &,
                                         std::vector<int64_t> *),
                  Status (*op)(const Tensor &, const Tensor &, const Params &)) {
    OPENVINO_ASSERT(inputs.size() == 1 && outputs.size() == 1, "lpnorm ", node.get_type_name(),
                    " evaluates 1 input into 1 output, got ", inputs.size(), " and ",
                    outputs.size());
    const Tensor x = to_lpnorm(inputs[0]);
    std::vector<int64_t> out_dims;
    check(output_shape(x.shape_vector(), params, &out_dims), node);
    outputs[0].set_shape(to_shape(out_dims));
    check(op(x, to_lpnorm(outputs[0]), params), node);
    return true;
}

// The names of an enum's values as they appear in IR attributes, and their parsing.
const char *auto_pad_name(AutoPad value);
const char *pool_mode_name(PoolMode value);
const char *overhang_name(Overhang value);
const char *empty_axes_name(EmptyAxes value);
// Each parser throws ov::Exception naming the attribute and the accepted values.
AutoPad parse_auto_pad(const std::string &name, const ov::Node &node);
PoolMode parse_pool_mode(const std::string &name, const ov::Node &node);
Overhang parse_overhang(const std::string &name, const ov::Node &node);
EmptyAxes parse_empty_axes(const std::string &name, const ov::Node &node);
EpsMode parse_eps_mode(const std::string &name, const ov::Node &node);  // eps_mode_name()'s names

}  // namespace lpnorm::ov_extension
