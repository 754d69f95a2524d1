// DirectML DML_OPERATOR_LP_POOLING and DML_OPERATOR_LP_POOLING1 mapped onto lpnorm::pool, and
// DML_OPERATOR_LP_NORMALIZATION mapped onto lpnorm::normalize. Attribute mapping only: the
// arithmetic is lpnorm's.
//
// The descs mirror DirectML's structs field by field, under DirectML's field names. The UINT
// arrays are std::vector<uint32_t> (from a DirectML desc: {desc.Strides, desc.Strides +
// desc.DimensionCount}), and the tensors are lpnorm::Tensor views passed beside the desc in place
// of the DML_TENSOR_DESC pointers.
//
// Y = (sum over the window of |x|^P)^(1/P), padded taps contributing 0 (DirectML's text omits
// |.|; ONNX Runtime's DirectML tests imply it). As in DirectML, the output sizes are the
// caller's OutputTensor sizes; lpnorm accepts them only when they equal the documented
// formula, OutputTensor.Sizes[i + 2] = (PaddedSize - WindowSize[i]) / Strides[i] + 1 (floor),
// with the dilated window (WindowSize[i] - 1) * Dilations[i] + 1 for LP_POOLING1, whose page
// leaves dilation out of the formula.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lpnorm/detail/adapter_text.h"
#include "lpnorm/lpnorm.h"

namespace lpnorm::directml {

// DML_LP_POOLING_OPERATOR_DESC (DML_FEATURE_LEVEL_1_0) without its tensor pointers.
struct LpPoolingOperatorDesc {
    // 2 for 4-D tensors {N, C, H, W}, 3 for 5-D tensors {N, C, D, H, W}.
    uint32_t DimensionCount = 2;
    // DimensionCount values each, in {H, W} or {D, H, W} order. Strides and WindowSize >= 1.
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    // >= 1.
    uint32_t P = 2;
};

// DML_LP_POOLING1_OPERATOR_DESC (DML_FEATURE_LEVEL_6_2): LP_POOLING plus Dilations.
struct LpPooling1OperatorDesc {
    uint32_t DimensionCount = 2;
    std::vector<uint32_t> Strides;
    std::vector<uint32_t> WindowSize;
    std::vector<uint32_t> StartPadding;
    std::vector<uint32_t> EndPadding;
    // DimensionCount values, each >= 1.
    std::vector<uint32_t> Dilations;
    uint32_t P = 2;
};

// DML_LP_NORMALIZATION_OPERATOR_DESC (DML_FEATURE_LEVEL_1_0) without its tensor pointers.
struct LpNormalizationOperatorDesc {
    // The normalized dim, < InputTensor's DimensionCount.
    uint32_t Axis = 0;
    // Finite and >= 0; DirectML recommends 0.00001.
    float Epsilon = 0.00001f;
    // 1 or 2.
    uint32_t P = 2;
};

namespace detail {

inline Status invalid(const std::string &message) {
    return Status(ErrorCode::invalid_argument, message);
}

// DimensionCount values, each >= `min`.
inline Status check_array(const char *field, const std::vector<uint32_t> &v, uint32_t count,
                          uint32_t min, const char *op) {
    if (v.size() != count) {
        return invalid(std::string(field) + " = " + adapter_text::list(v) + " has " +
                       std::to_string(v.size()) + " values; DimensionCount = " +
                       std::to_string(count) + " needs " + std::to_string(count) + " (" + op + ")");
    }
    for (size_t i = 0; i < v.size(); i++) {
        if (v[i] < min) {
            return invalid(std::string(field) + "[" + std::to_string(i) +
                           "] = " + std::to_string(v[i]) + " must be >= " + std::to_string(min) +
                           " (" + op + ")");
        }
    }
    return Status::Ok();
}

inline Status check_desc(const LpPooling1OperatorDesc &d, bool dilated, const char *op) {
    const uint32_t n = d.DimensionCount;
    if (n != 2 && n != 3) {
        return invalid("DimensionCount = " + std::to_string(n) +
                       " must be 2 (4-D tensors) or 3 (5-D tensors) (" + op + ")");
    }
    Status s = check_array("Strides", d.Strides, n, 1, op);
    if (s.ok()) s = check_array("WindowSize", d.WindowSize, n, 1, op);
    if (s.ok()) s = check_array("StartPadding", d.StartPadding, n, 0, op);
    if (s.ok()) s = check_array("EndPadding", d.EndPadding, n, 0, op);
    if (s.ok() && dilated) s = check_array("Dilations", d.Dilations, n, 1, op);
    if (s.ok() && d.P < 1) {
        return invalid("P = " + std::to_string(d.P) + " must be >= 1 (" + op + ")");
    }
    return s;
}

// FLOAT32 or FLOAT16, one DataType, one DimensionCount (the input's, already checked).
inline Status check_same_tensors(const Tensor &input, const Tensor &output, const char *op) {
    if (input.dtype != DType::float32 && input.dtype != DType::float16) {
        return invalid(std::string("InputTensor.DataType = ") + dtype_name(input.dtype) +
                       " is not FLOAT32 or FLOAT16 (" + op + ")");
    }
    if (output.dtype != input.dtype) {
        return Status(ErrorCode::dtype_mismatch,
                      std::string("OutputTensor.DataType = ") + dtype_name(output.dtype) +
                          " differs from InputTensor.DataType = " + dtype_name(input.dtype) + " (" +
                          op + ")");
    }
    if (output.rank != input.rank) {
        return Status(ErrorCode::shape_mismatch, "OutputTensor has " + std::to_string(output.rank) +
                                                     " dimensions; InputTensor has " +
                                                     std::to_string(input.rank) + " (" + op + ")");
    }
    return Status::Ok();
}

// Tensor support: 4-D or 5-D to match DimensionCount, FLOAT32 or FLOAT16, one DataType.
inline Status check_tensors(const Tensor &input, const Tensor &output, uint32_t n, const char *op) {
    const int rank = static_cast<int>(n) + 2;
    if (input.rank != rank) {
        return invalid("InputTensor has " + std::to_string(input.rank) +
                       " dimensions; DimensionCount = " + std::to_string(n) + " needs " +
                       std::to_string(rank) + " (" + op + ")");
    }
    return check_same_tensors(input, output, op);
}

inline PoolParams to_params(const LpPooling1OperatorDesc &d) {
    PoolParams params;
    params.kernel.assign(d.WindowSize.begin(), d.WindowSize.end());
    params.strides.assign(d.Strides.begin(), d.Strides.end());
    params.dilations.assign(d.Dilations.begin(), d.Dilations.end());  // empty: all 1
    params.pads.assign(d.StartPadding.begin(), d.StartPadding.end());
    params.pads.insert(params.pads.end(), d.EndPadding.begin(), d.EndPadding.end());
    params.p = d.P;
    params.mode = PoolMode::abs;
    params.overhang = Overhang::sum;  // floor sizes: no window runs past the padding
    return params;
}

// The documented size of OutputTensor.Sizes[i], as text for error messages.
inline std::string size_formula(size_t i, bool dilated) {
    if (i < 2) {
        return "InputTensor.Sizes[" + std::to_string(i) + "]";
    }
    const std::string s = "[" + std::to_string(i - 2) + "]";
    const std::string window =
        dilated ? "(WindowSize" + s + " - 1) * Dilations" + s + " - 1" : "WindowSize" + s;
    return "(InputTensor.Sizes[" + std::to_string(i) + "] + StartPadding" + s + " + EndPadding" +
           s + " - " + window + ") / Strides" + s + " + 1";
}

// The caller's OutputTensor sizes must equal DirectML's formula.
inline Status check_output_sizes(const Tensor &input, const Tensor &output,
                                 const PoolParams &params, bool dilated, const char *op) {
    std::vector<int64_t> expected;
    Status s = pool_output_shape(input.shape_vector(), params, &expected);
    if (!s.ok()) {
        return s;
    }
    for (size_t i = 0; i < expected.size(); i++) {
        if (output.shape[i] != expected[i]) {
            return Status(ErrorCode::shape_mismatch,
                          "OutputTensor.Sizes[" + std::to_string(i) +
                              "] = " + std::to_string(output.shape[i]) +
                              " differs from the expected " + std::to_string(expected[i]) + " = " +
                              size_formula(i, dilated) + " (" + op + ")");
        }
    }
    return Status::Ok();
}

inline Status run(const Tensor &input, const Tensor &output, const LpPooling1OperatorDesc &d,
                  bool dilated, const char *op) {
    Status s = check_desc(d, dilated, op);
    if (s.ok()) s = check_tensors(input, output, d.DimensionCount, op);
    if (!s.ok()) {
        return s;
    }
    const PoolParams params = to_params(d);
    s = check_output_sizes(input, output, params, dilated, op);
    return s.ok() ? pool(input, output, params) : s;
}

inline constexpr const char kLpNormalization[] = "DML_OPERATOR_LP_NORMALIZATION";

// The desc's fields, then the tensors: 1 to 8 dimensions (DML_FEATURE_LEVEL_3_1; 4 before it),
// FLOAT32 or FLOAT16, OutputTensor of InputTensor's DataType and Sizes, Axis among the dims.
inline Status check_normalization(const Tensor &input, const Tensor &output,
                                  const LpNormalizationOperatorDesc &d) {
    const char *op = kLpNormalization;
    if (d.P != 1 && d.P != 2) {
        return invalid("P = " + std::to_string(d.P) + " is not 1 or 2 (" + op + ")");
    }
    if (!(d.Epsilon >= 0) || std::isinf(d.Epsilon)) {
        return invalid("Epsilon = " + adapter_text::number(d.Epsilon) +
                       " must be finite and >= 0 (" + op + ")");
    }
    if (input.rank < 1 || input.rank > kMaxRank) {
        return invalid("InputTensor has " + std::to_string(input.rank) + " dimensions; " + op +
                       " takes 1 to " + std::to_string(kMaxRank));
    }
    Status s = check_same_tensors(input, output, op);
    if (!s.ok()) {
        return s;
    }
    if (d.Axis >= static_cast<uint32_t>(input.rank)) {
        return invalid("Axis = " + std::to_string(d.Axis) + " is out of range: InputTensor has " +
                       std::to_string(input.rank) + " dimensions (" + op + ")");
    }
    for (int i = 0; i < input.rank; i++) {
        if (output.shape[i] != input.shape[i]) {
            const std::string at = "Sizes[" + std::to_string(i) + "]";
            return Status(ErrorCode::shape_mismatch,
                          "OutputTensor." + at + " = " + std::to_string(output.shape[i]) +
                              " differs from InputTensor." + at + " = " +
                              std::to_string(input.shape[i]) + " (" + op + ")");
        }
    }
    return Status::Ok();
}

}  // namespace detail

// DML_OPERATOR_LP_POOLING: output = LpPool(input), output sizes as the caller gives them.
inline Status lp_pooling(const Tensor &input, const Tensor &output,
                         const LpPoolingOperatorDesc &desc) {
    const LpPooling1OperatorDesc d{
        desc.DimensionCount, desc.Strides, desc.WindowSize, desc.StartPadding,
        desc.EndPadding,     {},           desc.P};
    return detail::run(input, output, d, false, "DML_OPERATOR_LP_POOLING");
}

// DML_OPERATOR_LP_POOLING1: LP_POOLING with Dilations.
inline Status lp_pooling1(const Tensor &input, const Tensor &output,
                          const LpPooling1OperatorDesc &desc) {
    return detail::run(input, output, desc, true, "DML_OPERATOR_LP_POOLING1");
}

// DML_OPERATOR_LP_NORMALIZATION: output = input / max(||input||_P, Epsilon) along Axis, the
// input's DataType and Sizes. DirectML documents no formula for Epsilon; lpnorm takes it as
// PyTorch's F.normalize does, as a floor on the norm (EpsMode::norm_max), so an all-zero row
// gives zeros (NaN with Epsilon = 0).
inline Status lp_normalization(const Tensor &input, const Tensor &output,
                               const LpNormalizationOperatorDesc &desc) {
    Status s = detail::check_normalization(input, output, desc);
    if (!s.ok()) {
        return s;
    }
    NormalizeParams params;
    params.axes = {static_cast<int64_t>(desc.Axis)};
    params.p = desc.P;
    params.eps = desc.Epsilon;
    params.eps_mode = EpsMode::norm_max;
    return normalize(input, output, params);
}

}  // namespace lpnorm::directml
