#include "validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "gpu.h"

namespace lpnorm::rt {

std::string format_shape(const int64_t *shape, int rank) {
    std::string s = "[";
    for (int i = 0; i < rank; i++) {
        s += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return s + "]";
}

std::string format_shape(const std::vector<int64_t> &shape) {
    return format_shape(shape.data(), static_cast<int>(shape.size()));
}

std::string format_number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    // Shortest form that round-trips, for readable messages.
    for (int digits = 1; digits <= 17; digits++) {
        char shorter[32];
        std::snprintf(shorter, sizeof shorter, "%.*g", digits, v);
        if (std::strtod(shorter, nullptr) == v) {
            return shorter;
        }
    }
    return buf;
}

namespace {

// Element offsets, relative to `data`, of the lowest (<= 0) and highest (>= 0) elements of a
// non-empty tensor; wide enough for any int64 strides and shapes.
struct ElementReach {
    __int128 below = 0;
    __int128 above = 0;
};

ElementReach element_reach(const Tensor &t) {
    ElementReach r;
    for (int i = 0; i < t.rank; i++) {
        const __int128 reach = __int128(t.strides[i]) * (t.shape[i] - 1);
        (reach < 0 ? r.below : r.above) += reach;
    }
    return r;
}

}  // namespace

Status validate_tensor(const Tensor &t, const char *name) {
    // The name as a string, built only for a message: every call validates two tensors.
    const auto n = [name] { return std::string(name); };
    if (t.rank < 0 || t.rank > kMaxRank) {
        return Status(ErrorCode::invalid_argument,
                      n() + ".rank = " + std::to_string(t.rank) + " is outside [0, " +
                          std::to_string(kMaxRank) + "] (or its strides do not match its shape)");
    }
    if (dtype_size(t.dtype) == 0) {
        return Status(ErrorCode::invalid_argument,
                      n() + ".dtype = " + std::to_string(int(t.dtype)) + " is not a dtype");
    }
    if (!is_memory(int(t.memory))) {
        return Status(ErrorCode::invalid_argument,
                      n() + ".memory = " + std::to_string(int(t.memory)) + " is not a Memory");
    }
    int64_t elements = 1;
    bool overflow = false;
    for (int i = 0; i < t.rank; i++) {
        if (t.shape[i] < 0) {
            return Status(ErrorCode::invalid_argument, n() + ".shape[" + std::to_string(i) +
                                                           "] = " + std::to_string(t.shape[i]) +
                                                           " is negative");
        }
        overflow = overflow || __builtin_mul_overflow(elements, t.shape[i], &elements);
    }
    int64_t bytes = 0;
    overflow = overflow || __builtin_mul_overflow(elements, int64_t(dtype_size(t.dtype)), &bytes);
    if (overflow && t.num_elements() != 0) {
        return Status(ErrorCode::too_large, n() + ".shape = " + format_shape(t.shape, t.rank) +
                                                " of " + dtype_name(t.dtype) +
                                                " has more than 2^63 bytes");
    }
    // The furthest element from `data` must be addressable: its byte offset within int64.
    if (t.num_elements() != 0) {
        const ElementReach r = element_reach(t);
        if ((r.above - r.below + 1) * __int128(dtype_size(t.dtype)) > __int128(INT64_MAX)) {
            return Status(ErrorCode::too_large,
                          n() + ".strides = " + format_shape(t.strides, t.rank) + " with shape " +
                              format_shape(t.shape, t.rank) + " reach beyond 2^63 bytes");
        }
    }
    if (t.data == nullptr && t.num_elements() != 0) {
        return Status(ErrorCode::null_pointer, n() + ".data is null but " + n() + ".shape = " +
                                                   format_shape(t.shape, t.rank) + " has " +
                                                   std::to_string(t.num_elements()) + " elements");
    }
    return Status::Ok();
}

Status normalize_axes(const std::vector<int64_t> &axes, int rank, uint32_t *mask) {
    uint32_t m = 0;
    int first_index[kMaxRank];
    for (size_t i = 0; i < axes.size(); i++) {
        const int64_t a = axes[i];
        if (a < -rank || a >= rank) {
            return Status(ErrorCode::invalid_argument,
                          "axes[" + std::to_string(i) + "] = " + std::to_string(a) +
                              " is out of range for rank " + std::to_string(rank) + " (valid: [" +
                              std::to_string(-rank) + ", " + std::to_string(rank - 1) + "])");
        }
        const int axis = static_cast<int>(a < 0 ? a + rank : a);
        if (m & (1u << axis)) {
            return Status(ErrorCode::invalid_argument,
                          "axes[" + std::to_string(i) + "] = " + std::to_string(a) +
                              " repeats axes[" + std::to_string(first_index[axis]) +
                              "] = " + std::to_string(axes[first_index[axis]]) + " (axis " +
                              std::to_string(axis) + ")");
        }
        first_index[axis] = static_cast<int>(i);
        m |= 1u << axis;
    }
    *mask = m;
    return Status::Ok();
}

Status validate_shape(const std::vector<int64_t> &shape) {
    if (shape.size() > size_t(kMaxRank)) {
        return Status(ErrorCode::invalid_argument, "input.rank = " + std::to_string(shape.size()) +
                                                       " is outside [0, " +
                                                       std::to_string(kMaxRank) + "]");
    }
    for (size_t i = 0; i < shape.size(); i++) {
        if (shape[i] < 0) {
            return Status(ErrorCode::invalid_argument, "input.shape[" + std::to_string(i) +
                                                           "] = " + std::to_string(shape[i]) +
                                                           " is negative");
        }
    }
    return Status::Ok();
}

Status validate_p(double p) {
    if (std::isnan(p) || (p < 0 && !std::isinf(p))) {
        return Status(
            ErrorCode::invalid_argument,
            "p = " + format_number(p) + " is not a norm order: use p > 0, 0, inf or -inf");
    }
    return Status::Ok();
}

namespace {

// [lowest, highest] byte addresses a tensor touches; false when it has no elements.
bool byte_span(const Tensor &t, uintptr_t *lo, uintptr_t *hi) {
    if (t.num_elements() == 0) {
        return false;
    }
    const int64_t size = static_cast<int64_t>(dtype_size(t.dtype));
    const ElementReach r = element_reach(t);
    const __int128 base = reinterpret_cast<uintptr_t>(t.data);
    *lo = static_cast<uintptr_t>(std::max<__int128>(0, base + r.below * size));
    *hi = static_cast<uintptr_t>(std::min<__int128>(UINTPTR_MAX, base + r.above * size + size - 1));
    return true;
}

}  // namespace

Status validate_output(const Tensor &input, const Tensor &output, const Shape &expected,
                       const char *input_name, const char *output_name) {
    // The names become strings on the error paths only: every call passes through here, and
    // a small reduction's whole call takes about 200 ns.
    if (output.dtype != input.dtype) {
        return Status(ErrorCode::dtype_mismatch,
                      std::string(output_name) + ".dtype = " + dtype_name(output.dtype) +
                          " differs from " + input_name + ".dtype = " + dtype_name(input.dtype));
    }
    const bool same_shape = output.rank == expected.rank &&
                            std::equal(expected.dim, expected.dim + expected.rank, output.shape);
    if (!same_shape) {
        return Status(
            ErrorCode::shape_mismatch,
            std::string(output_name) + ".shape = " + format_shape(output.shape, output.rank) +
                " differs from the expected " + format_shape(expected.dim, expected.rank));
    }
    if (!output.is_contiguous()) {
        return Status(
            ErrorCode::invalid_argument,
            std::string(output_name) + ".strides = " + format_shape(output.strides, output.rank) +
                " are not dense row-major for shape " + format_shape(output.shape, output.rank));
    }
    return check_no_overlap(input, input_name, output, output_name);
}

Status check_no_overlap(const Tensor &input, const char *input_name, const Tensor &output,
                        const char *output_name) {
    // A cl_mem or an ID3D12Resource is a handle, not an address: only the same handle overlaps.
    if (is_handle_memory(input.memory) && input.memory == output.memory) {
        if (input.data == output.data) {
            return Status(ErrorCode::aliasing, std::string(input_name) + " and " + output_name +
                                                   " are the same " + memory_api(input.memory) +
                                                   " buffer");
        }
        return Status::Ok();
    }
    uintptr_t in_lo, in_hi, out_lo, out_hi;
    if (byte_span(input, &in_lo, &in_hi) && byte_span(output, &out_lo, &out_hi) &&
        in_lo <= out_hi && out_lo <= in_hi) {
        return Status(ErrorCode::aliasing,
                      std::string(input_name) + " and " + output_name + " memory overlap");
    }
    return Status::Ok();
}

bool is_gradient_dtype(DType dtype) {
    return dtype == DType::float32 || dtype == DType::float64 || dtype == DType::float16 ||
           dtype == DType::bfloat16;
}

Status check_forward_output(const Tensor &t, const char *name, const Tensor &input,
                            const Shape &expected) {
    if (t.dtype != input.dtype) {
        return Status(ErrorCode::dtype_mismatch,
                      std::string(name) + ".dtype = " + dtype_name(t.dtype) +
                          " differs from input.dtype = " + dtype_name(input.dtype));
    }
    if (t.rank != expected.rank ||
        !std::equal(expected.dim, expected.dim + expected.rank, t.shape)) {
        return Status(ErrorCode::shape_mismatch, std::string(name) +
                                                     ".shape = " + format_shape(t.shape, t.rank) +
                                                     " differs from the forward's output shape " +
                                                     format_shape(expected.dim, expected.rank));
    }
    return Status::Ok();
}

Status check_gradient_tensors(const Tensor &input, const Tensor &output, const Tensor &output_grad,
                              const Tensor &input_grad, const Shape &forward) {
    Status s = check_forward_output(output, "output", input, forward);
    if (s.ok()) s = check_forward_output(output_grad, "output_grad", input, forward);
    Shape input_shape;
    input_shape.rank = input.rank;
    for (int i = 0; i < input.rank; i++) input_shape.dim[i] = input.shape[i];
    if (s.ok()) s = validate_output(input, input_grad, input_shape, "input", "input_grad");
    if (s.ok()) s = check_no_overlap(output, "output", input_grad, "input_grad");
    if (s.ok()) s = check_no_overlap(output_grad, "output_grad", input_grad, "input_grad");
    return s;
}

}  // namespace lpnorm::rt
