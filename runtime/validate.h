// Argument checks shared by every entry point. Each failure names the argument and value.
#pragma once

#include <string>
#include <vector>

#include "lpnorm/lpnorm.h"

namespace lpnorm::rt {

// "[6, 12, 10]"
std::string format_shape(const int64_t *shape, int rank);
std::string format_shape(const std::vector<int64_t> &shape);
// "2.5", "inf", "-inf", "nan"
std::string format_number(double v);

// Rank, dtype, non-negative shape, byte-count overflow, null data. `name` is "input" or
// "output".
Status validate_tensor(const Tensor &t, const char *name);

// Normalises `axes` for `rank` into a bit mask (bit i: logical axis i), rejecting out-of-range
// and repeated axes.
Status normalize_axes(const std::vector<int64_t> &axes, int rank, uint32_t *mask);

// An input shape given without a tensor (the *_output_shape queries): rank and non-negative dims.
Status validate_shape(const std::vector<int64_t> &shape);

// p must be > 0, 0, +inf or -inf.
Status validate_p(double p);

// A shape held inline (no allocation on the call path).
struct Shape {
    int rank = 0;
    int64_t dim[kMaxRank] = {};
    std::vector<int64_t> to_vector() const { return std::vector<int64_t>(dim, dim + rank); }
};

// Output dtype, shape (exactly `expected`), density, and no overlap with the input; messages
// name the two as given.
Status validate_output(const Tensor &input, const Tensor &output, const Shape &expected,
                       const char *input_name = "input", const char *output_name = "output");

// The floating dtypes the gradients take: float32, float64, float16, bfloat16.
bool is_gradient_dtype(DType dtype);

// A gradient's tensor of the forward's output shape (`name`: "output" or "output_grad"): the
// input's dtype and exactly `expected`'s shape; any strides.
Status check_forward_output(const Tensor &t, const char *name, const Tensor &input,
                            const Shape &expected);

// The tensors of a gradient with a forward output: output and output_grad as
// check_forward_output() says, input_grad as validate_output() with the input's shape, and
// input_grad overlapping neither output nor output_grad.
Status check_gradient_tensors(const Tensor &input, const Tensor &output, const Tensor &output_grad,
                              const Tensor &input_grad, const Shape &forward);

// No byte of `output` lies inside `input`'s span (for cl_mem handles: not the same buffer).
Status check_no_overlap(const Tensor &input, const char *input_name, const Tensor &output,
                        const char *output_name);

}  // namespace lpnorm::rt
