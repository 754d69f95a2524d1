// Rules shared by several entry points, and the buffers and helpers every row uses.
#include <cmath>
#include <stdexcept>

#include "bad_input/table.h"
#include "test_util.h"

namespace lpnorm::test::bad_input {

namespace {

Tensor view(std::vector<unsigned char> &storage, const std::vector<int64_t> &shape, DType dtype) {
    size_t bytes = dtype_size(dtype);
    for (int64_t d : shape) {
        if (d < 0 || d > int64_t(Buffers::kBytes)) throw std::logic_error("row view does not fit");
        bytes *= size_t(d);
    }
    if (bytes > storage.size()) throw std::logic_error("row view does not fit its buffer");
    return Tensor::contiguous(storage.data(), dtype, shape);
}

constexpr int64_t k2_31 = int64_t{1} << 31, k2_32 = int64_t{1} << 32, k2_61 = int64_t{1} << 61;

}  // namespace

Tensor Buffers::x(const std::vector<int64_t> &shape, DType dtype) { return view(in, shape, dtype); }
Tensor Buffers::y(const std::vector<int64_t> &shape, DType dtype) {
    return view(out, shape, dtype);
}

ReduceParams reduce_params(std::vector<int64_t> axes, double p, EmptyAxes empty, bool keep_dims) {
    return params(std::move(axes), p, keep_dims, empty);
}

PoolParams pool_params(std::vector<int64_t> kernel, std::vector<int64_t> strides) {
    PoolParams p;
    p.kernel = std::move(kernel);
    p.strides = std::move(strides);
    return p;
}

// normalize_axes, validate_p and the empty-axes policy (reduce.cpp resolve()), on kShape.
std::vector<ReduceRule> reduce_attribute_rules() {
    return {
        {"validate.axis_range",
         "axis above the rank",
         kShape,
         reduce_params({0, 7}),
         {"axes[1] = 7", "rank 4"}},
        {"validate.axis_range",
         "negative axis below -rank",
         kShape,
         reduce_params({-5}),
         {"axes[0] = -5", "rank 4"}},
        {"validate.axis_range",
         "any axis of a rank-0 tensor",
         {},
         reduce_params({0}),
         {"axes[0] = 0", "rank 0"}},
        {"validate.axis_repeat",
         "repeated axis",
         kShape,
         reduce_params({1, 1}),
         {"axes[1] = 1", "axes[0] = 1"}},
        {"validate.axis_repeat",
         "negative alias of an axis",
         kShape,
         reduce_params({1, -3}),
         {"axes[1] = -3", "axes[0] = 1"}},
        {"validate.p", "negative p", kShape, reduce_params({3}, -1), {"p = -1"}},
        {"validate.p", "fractional negative p", kShape, reduce_params({3}, -0.5), {"p = -0.5"}},
        {"validate.p", "NaN p", kShape, reduce_params({3}, std::nan("")), {"p = nan"}},
        {"reduce.empty_axes",
         "empty_axes above the enum",
         kShape,
         reduce_params({}, 2, static_cast<EmptyAxes>(7)),
         {"empty_axes = 7"}},
        {"reduce.empty_axes",
         "negative empty_axes",
         kShape,
         reduce_params({}, 2, static_cast<EmptyAxes>(-1)),
         {"empty_axes = -1"}},
        {"reduce.empty_axes",
         "bad empty_axes with axes given",
         kShape,
         reduce_params({1}, 2, static_cast<EmptyAxes>(3)),
         {"empty_axes = 3"}},
    };
}

// check_attributes and resolve_axis (pool_geometry.cpp), on kShape unless stated.
std::vector<PoolRule> pool_attribute_rules() {
    auto with = [](PoolParams p, auto edit) {
        edit(p);
        return p;
    };
    const PoolParams base = pool_params({2, 2}, {2, 2});
    const double inf = HUGE_VAL;
    return {
        {"geometry.kernel_count",
         "no kernel",
         kShape,
         pool_params({}),
         {"kernel has 0 values"},
         false},
        {"geometry.kernel_count",
         "4-D kernel",
         {2, 3, 4, 4, 4, 4},
         pool_params({2, 2, 2, 2}),
         {"kernel has 4 values"},
         false},
        {"geometry.rank",
         "rank 4 for a 1-D kernel",
         kShape,
         pool_params({2}),
         {"input.rank = 4", "kernel with 1 values", "expected rank 3"}},
        {"geometry.kernel_min", "zero kernel", kShape, pool_params({2, 0}), {"kernel[1] = 0"}},
        {"geometry.kernel_min",
         "negative kernel",
         kShape,
         pool_params({-3, 2}),
         {"kernel[0] = -3"}},
        {"geometry.per_dim_count",
         "too few strides",
         kShape,
         pool_params({2, 2}, {2}),
         {"strides has 1 values", "expected 0 or 2"},
         false},
        {"geometry.per_dim_min",
         "zero stride",
         kShape,
         pool_params({2, 2}, {2, 0}),
         {"strides[1] = 0"}},
        {"geometry.per_dim_count",
         "too many dilations",
         kShape,
         with(base,
              [](PoolParams &p) {
                  p.dilations = {1, 1, 1};
              }),
         {"dilations has 3 values", "expected 0 or 2"},
         false},
        {"geometry.per_dim_min",
         "negative dilation",
         kShape,
         with(base,
              [](PoolParams &p) {
                  p.dilations = {-1, 1};
              }),
         {"dilations[0] = -1"}},
        {"geometry.pads_count",
         "3 pads for 2 dims",
         kShape,
         with(base,
              [](PoolParams &p) {
                  p.pads = {1, 1, 1};
              }),
         {"pads has 3 values", "expected 0 or 4"},
         false},
        {"geometry.pads_min",
         "negative pad",
         kShape,
         with(base,
              [](PoolParams &p) {
                  p.pads = {0, 0, -2, 0};
              }),
         {"pads[2] = -2"}},
        {"geometry.p", "p = 0", kShape, with(base, [](PoolParams &p) { p.p = 0; }), {"p = 0"}},
        {"geometry.p",
         "negative p",
         kShape,
         with(base, [](PoolParams &p) { p.p = -1; }),
         {"p = -1"}},
        {"geometry.p",
         "NaN p",
         kShape,
         with(base, [](PoolParams &p) { p.p = std::nan(""); }),
         {"p = nan"}},
        {"geometry.p",
         "p = inf",
         kShape,
         with(base, [&](PoolParams &p) { p.p = inf; }),
         {"p = inf"}},
        {"geometry.p",
         "p = -inf",
         kShape,
         with(base, [&](PoolParams &p) { p.p = -inf; }),
         {"p = -inf"}},
        {"geometry.auto_pad",
         "auto_pad above the enum",
         kShape,
         with(base, [](PoolParams &p) { p.auto_pad = static_cast<AutoPad>(9); }),
         {"auto_pad = 9"}},
        {"geometry.auto_pad",
         "negative auto_pad",
         kShape,
         with(base, [](PoolParams &p) { p.auto_pad = static_cast<AutoPad>(-1); }),
         {"auto_pad = -1"}},
        {"geometry.mode",
         "mode above the enum",
         kShape,
         with(base, [](PoolParams &p) { p.mode = static_cast<PoolMode>(2); }),
         {"mode = 2"}},
        {"geometry.mode",
         "negative mode",
         kShape,
         with(base, [](PoolParams &p) { p.mode = static_cast<PoolMode>(-1); }),
         {"mode = -1"}},
        {"geometry.overhang",
         "overhang above the enum",
         kShape,
         with(base, [](PoolParams &p) { p.overhang = static_cast<Overhang>(2); }),
         {"overhang = 2"}},
        {"geometry.overhang",
         "negative overhang",
         kShape,
         with(base, [](PoolParams &p) { p.overhang = static_cast<Overhang>(-1); }),
         {"overhang = -1"}},
        {"geometry.same_empty",
         "SAME_UPPER on an empty dim",
         {2, 3, 0, 8},
         with(base, [](PoolParams &p) { p.auto_pad = AutoPad::same_upper; }),
         {"input.shape[2] = 0", "auto_pad SAME"}},
        {"geometry.same_empty",
         "SAME_LOWER on an empty dim",
         {2, 3, 6, 0},
         with(base, [](PoolParams &p) { p.auto_pad = AutoPad::same_lower; }),
         {"input.shape[3] = 0", "auto_pad SAME"}},
        {"geometry.window",
         "kernel larger than the input",
         kShape,
         pool_params({7, 2}, {2, 2}),
         {"input.shape[2] = 6", "kernel[0] = 7", "(7)"}},
        {"geometry.window",
         "dilated kernel larger than the input",
         kShape,
         with(base,
              [](PoolParams &p) {
                  p.dilations = {1, 8};
              }),
         {"input.shape[3] = 8", "kernel[1] = 2", "dilations[1] = 8", "(9)"}},
        {"geometry.window",
         "kernel larger than the padded input",
         kShape,
         with(pool_params({9, 2}, {2, 2}),
              [](PoolParams &p) {
                  p.pads = {1, 0, 1, 0};
              }),
         {"input.shape[2] = 6 with pads 1 + 1", "kernel[0] = 9"}},
        {"geometry.window",
         "VALID ignores the pads",
         kShape,
         with(pool_params({7, 2}, {2, 2}),
              [](PoolParams &p) {
                  p.pads = {1, 0, 1, 0};
                  p.auto_pad = AutoPad::valid;
              }),
         {"input.shape[2] = 6 with pads 0 + 0", "kernel[0] = 7"}},
        {"geometry.ceil_drop",
         "ceil_mode drops the only window",
         {2, 3, 0, 8},
         with(pool_params({2, 2}, {1, 1}),
              [](PoolParams &p) {
                  p.pads = {0, 0, 2, 0};
                  p.ceil_mode = true;
              }),
         {"input.shape[2] = 0 with pads 0 + 2", "ceil_mode"}},
        {"geometry.window_reach",
         "pads beyond the 2^30 a window may reach",
         kShape,
         with(base,
              [](PoolParams &p) {
                  p.pads = {0, int64_t(1) << 30, 0, 0};
              }),
         {"input.shape[3] = 8", "pads 1073741824 + 0", "beyond 2^30"},
         true,
         ErrorCode::too_large},
    };
}

// validate_tensor() on the input (`which` = "input") or the output. The "element count above
// 2^63" rows also check that Tensor::contiguous computes such a shape's strides without a
// signed overflow (UBSan reported one before its strides saturated).
std::vector<TensorRule> tensor_rules(const std::string &which) {
    const bool input = which == "input";
    auto storage = [input](Buffers &b) -> void * { return input ? b.in.data() : b.out.data(); };
    const std::string w = which;
    return {
        {"validate.rank",
         "rank 9",
         [=](Buffers &b) {
             return Tensor::contiguous(storage(b), DType::float32, std::vector<int64_t>(9, 1));
         },
         ErrorCode::invalid_argument,
         {w + ".rank = 9"},
         false},
        {"validate.rank",
         "strides of another rank (rank -1)",
         [=](Buffers &b) {
             return Tensor::strided(storage(b), DType::float32, {2, 3}, {3});
         },
         ErrorCode::invalid_argument,
         {w + ".rank = -1"},
         false},
        {"validate.dtype",
         "dtype code 12",
         [=](Buffers &b) {
             return Tensor::contiguous(storage(b), static_cast<DType>(12), {2, 3});
         },
         ErrorCode::invalid_argument,
         {w + ".dtype = 12"},
         false},
        {"validate.negative",
         "negative dim",
         [=](Buffers &b) {
             return Tensor::strided(storage(b), DType::float32, {2, -3}, {3, 1});
         },
         ErrorCode::invalid_argument,
         {w + ".shape[1] = -3"}},
        {"validate.bytes",
         "element count above 2^63",  // UBSan: see above
         [=](Buffers &b) {
             return Tensor::contiguous(storage(b), DType::float32, {k2_32, k2_31});
         },
         ErrorCode::too_large,
         {w + ".shape = [4294967296, 2147483648]", "float32"}},
        {"validate.bytes",
         "2^62 float64 elements: bytes above 2^63",
         [=](Buffers &b) {
             return Tensor::contiguous(storage(b), DType::float64, {k2_61, 2});
         },
         ErrorCode::too_large,
         {w + ".shape = [2305843009213693952, 2]", "float64"}},
        {"validate.reach",
         "3 elements 2^61 elements apart",
         [=](Buffers &b) { return Tensor::strided(storage(b), DType::float32, {3}, {k2_61}); },
         ErrorCode::too_large,
         {w + ".strides = [2305843009213693952]", "shape [3]"}},
        {"validate.reach",
         "3 elements -2^61 elements apart",
         [=](Buffers &b) { return Tensor::strided(storage(b), DType::float32, {3}, {-k2_61}); },
         ErrorCode::too_large,
         {w + ".strides = [-2305843009213693952]", "shape [3]"}},
        {"validate.null_data",
         "null data",
         [=](Buffers &) {
             return Tensor::contiguous(nullptr, DType::float32, {2, 3, 4});
         },
         ErrorCode::null_pointer,
         {w + ".data is null", w + ".shape = [2, 3, 4]", "24 elements"}},
    };
}

const std::vector<Row> &all_rows() {
    static const std::vector<Row> rows = [] {
        std::vector<Row> r;
        add_core_rows(&r);
        add_c_api_rows(&r);
        add_onnx_rows(&r);
        add_other_adapter_rows(&r);
        add_normalize_rows(&r);
        add_reduce_backward_rows(&r);
        add_pool_backward_rows(&r);
        return r;
    }();
    return rows;
}

}  // namespace lpnorm::test::bad_input
