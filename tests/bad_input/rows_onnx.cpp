// Rows of lpnorm/onnx.h: ReduceL1/ReduceL2 and their output shape, LpPool and GlobalLpPool and
// their output shapes. Each attribute rule runs through every entry point that checks it.
#include <cmath>

#include "bad_input/table.h"
#include "lpnorm/onnx.h"

namespace lpnorm::test::bad_input {

namespace {

const ErrorCode kInvalid = ErrorCode::invalid_argument;

// "{op}" in a fragment stands for the operator the entry point reports.
std::vector<std::string> with_op(std::vector<std::string> fragments, const std::string &op) {
    for (std::string &f : fragments) {
        const size_t at = f.find("{op}");
        if (at != std::string::npos) f.replace(at, 4, op);
    }
    return fragments;
}

struct ReduceCase {
    std::string site, name;
    onnx::ReduceAttributes a;
    DType dtype;
    std::vector<std::string> fragments;
    std::vector<int64_t> out_shape = {};  // for the tensor entry points
    ErrorCode code = kInvalid;
    bool shape_query = true;  // onnx::reduce_output_shape reaches it too
};

onnx::ReduceAttributes reduce_attrs(int64_t opset, std::vector<int64_t> axes = {},
                                    int64_t keepdims = 1, int64_t noop = 0) {
    onnx::ReduceAttributes a;
    a.opset = opset;
    a.axes = std::move(axes);
    a.keepdims = keepdims;
    a.noop_with_empty_axes = noop;
    return a;
}

std::vector<ReduceCase> reduce_cases() {
    const DType f32 = DType::float32;
    return {
        {"onnx.reduce_opset", "opset 0", reduce_attrs(0), f32, {"opset = 0"}},
        {"onnx.reduce_opset", "negative opset", reduce_attrs(-3), f32, {"opset = -3"}},
        {"onnx.keepdims", "keepdims 2", reduce_attrs(18, {}, 2), f32, {"keepdims = 2", "{op}-18"}},
        {"onnx.keepdims",
         "keepdims -1",
         reduce_attrs(11, {}, -1),
         f32,
         {"keepdims = -1", "{op}-11"}},
        {"onnx.noop_value",
         "noop_with_empty_axes 3",
         reduce_attrs(18, {}, 1, 3),
         f32,
         {"noop_with_empty_axes = 3", "{op}-18"}},
        {"onnx.noop_opset",
         "noop_with_empty_axes at opset 13",
         reduce_attrs(13, {}, 1, 1),
         f32,
         {"noop_with_empty_axes = 1", "{op}-13", "opset 18"}},
        {"onnx.noop_opset",
         "noop_with_empty_axes at opset 17 (as 13)",
         reduce_attrs(17, {}, 1, 1),
         f32,
         {"noop_with_empty_axes = 1", "{op}-13"}},
        {"onnx.noop_opset",
         "noop_with_empty_axes at opset 1",
         reduce_attrs(1, {}, 1, 1),
         f32,
         {"noop_with_empty_axes = 1", "{op}-1 "}},
        {"onnx.reduce_dtype",
         "int8 data",
         reduce_attrs(18),
         DType::int8,
         {"data.dtype = int8", "{op}-18"}},
        {"onnx.reduce_dtype",
         "uint8 data",
         reduce_attrs(13),
         DType::uint8,
         {"data.dtype = uint8", "{op}-13"}},
        {"onnx.reduce_dtype",
         "int16 data",
         reduce_attrs(11),
         DType::int16,
         {"data.dtype = int16", "{op}-11"}},
        {"onnx.reduce_dtype",
         "uint16 data",
         reduce_attrs(1),
         DType::uint16,
         {"data.dtype = uint16", "{op}-1"}},
        {"onnx.reduce_dtype",
         "bfloat16 before opset 13",
         reduce_attrs(12),
         DType::bfloat16,
         {"data.dtype = bfloat16", "{op}-11"}},
        {"validate.axis_range",
         "axes attribute out of range (opset 13)",
         reduce_attrs(13, {4}),
         f32,
         {"axes[0] = 4", "rank 4"}},
        {"validate.axis_range",
         "axes input below -rank (opset 18)",
         reduce_attrs(18, {0, -5}),
         f32,
         {"axes[1] = -5", "rank 4"}},
        {"validate.axis_repeat",
         "axes attribute repeated (opset 1)",
         reduce_attrs(1, {0, -4}),
         f32,
         {"axes[1] = -4", "axes[0] = 0"}},
        {"validate.axis_repeat",
         "axes input repeated (opset 18)",
         reduce_attrs(18, {2, 2}),
         f32,
         {"axes[1] = 2", "axes[0] = 2"}},
        {"validate.output_shape",
         "keepdims defaults to 1",
         reduce_attrs(18, {2, 3}),
         f32,
         {"output.shape = [2, 3]", "expected [2, 3, 1, 1]"},
         {2, 3},
         ErrorCode::shape_mismatch,
         false},
        {"validate.output_shape",
         "no axes reduce everything",
         reduce_attrs(13, {}, 0),
         f32,
         {"output.shape = [2, 3]", "expected []"},
         {2, 3},
         ErrorCode::shape_mismatch,
         false},
        {"validate.output_shape",
         "noop_with_empty_axes keeps every dim",
         reduce_attrs(18, {}, 1, 1),
         f32,
         {"output.shape = []", "expected [2, 3, 6, 8]"},
         {},
         ErrorCode::shape_mismatch,
         false},
    };
}

void add_reduce_rows(std::vector<Row> *rows) {
    for (const ReduceCase &c : reduce_cases()) {
        for (const int op : {1, 2}) {
            const std::string e = op == 1 ? "onnx::reduce_l1" : "onnx::reduce_l2";
            rows->push_back(
                {e, c.site, c.name,
                 [c, op](Buffers &b) {
                     const Tensor x = b.x(kShape, c.dtype), y = b.y(c.out_shape, c.dtype);
                     return of(op == 1 ? onnx::reduce_l1(x, y, c.a) : onnx::reduce_l2(x, y, c.a));
                 },
                 c.code, with_op(c.fragments, op == 1 ? "ReduceL1" : "ReduceL2")});
        }
        if (c.shape_query) {
            // The shape query does not know the operator and reports ReduceL2.
            rows->push_back({"onnx::reduce_output_shape", c.site, c.name,
                             [c](Buffers &b) {
                                 return of(
                                     onnx::reduce_output_shape(kShape, c.dtype, c.a, &b.shape_out));
                             },
                             c.code, with_op(c.fragments, "ReduceL2")});
        }
    }
}

struct PoolCase {
    std::string site, name;
    onnx::LpPoolAttributes a;
    std::vector<std::string> fragments;
    std::vector<int64_t> shape = kShape;
    DType dtype = DType::float32;
    std::vector<int64_t> out_shape = {2, 3, 3, 4};
    ErrorCode code = kInvalid;
    bool shape_query = true;
};

onnx::LpPoolAttributes pool_attrs(int64_t opset,
                                  std::function<void(onnx::LpPoolAttributes &)> edit = nullptr) {
    onnx::LpPoolAttributes a;
    a.opset = opset;
    a.kernel_shape = {2, 2};
    a.strides = {2, 2};
    if (edit) edit(a);
    return a;
}

std::vector<PoolCase> pool_cases() {
    using A = onnx::LpPoolAttributes;
    std::vector<PoolCase> c = {
        {"onnx.pool_opset", "opset 0", pool_attrs(0), {"opset = 0"}},
        {"onnx.pool_p", "p = 0", pool_attrs(22, [](A &a) { a.p = 0; }), {"p = 0", "LpPool-22"}},
        {"onnx.pool_p",
         "negative p",
         pool_attrs(18, [](A &a) { a.p = -2; }),
         {"p = -2", "LpPool-18"}},
        {"onnx.pool_p",
         "p = inf",
         pool_attrs(11, [](A &a) { a.p = HUGE_VAL; }),
         {"p = inf", "LpPool-11"}},
        {"onnx.pool_p",
         "NaN p (a FLOAT in opset 1)",
         pool_attrs(1, [](A &a) { a.p = std::nan(""); }),
         {"p = nan", "LpPool-1"}},
        {"onnx.pool_p_int",
         "p = 2.5 at opset 2",
         pool_attrs(2, [](A &a) { a.p = 2.5; }),
         {"p = 2.5", "LpPool-2", "INT"}},
        {"onnx.pool_p_int",
         "p = 0.5 at opset 22",
         pool_attrs(22, [](A &a) { a.p = 0.5; }),
         {"p = 0.5", "LpPool-22", "INT"}},
        {"onnx.dilations_opset",
         "dilations at opset 11",
         pool_attrs(11,
                    [](A &a) {
                        a.dilations = {1, 1};
                    }),
         {"dilations = [1, 1]", "LpPool-11", "opset 18"}},
        {"onnx.ceil_opset",
         "ceil_mode at opset 10 (as 2)",
         pool_attrs(10, [](A &a) { a.ceil_mode = 1; }),
         {"ceil_mode = 1", "LpPool-2", "opset 18"}},
        {"onnx.ceil_opset",
         "ceil_mode at opset 17 (as 11)",
         pool_attrs(17, [](A &a) { a.ceil_mode = 1; }),
         {"ceil_mode = 1", "LpPool-11"}},
        {"onnx.ceil_value",
         "ceil_mode 2",
         pool_attrs(18, [](A &a) { a.ceil_mode = 2; }),
         {"ceil_mode = 2", "LpPool-18", "0 or 1"}},
        {"onnx.ceil_value",
         "ceil_mode -1",
         pool_attrs(22, [](A &a) { a.ceil_mode = -1; }),
         {"ceil_mode = -1", "LpPool-22"}},
        {"onnx.auto_pad",
         "lower-case auto_pad",
         pool_attrs(22, [](A &a) { a.auto_pad = "same_upper"; }),
         {"auto_pad = \"same_upper\"", "LpPool-22"}},
        {"onnx.auto_pad",
         "auto_pad SAME",
         pool_attrs(11, [](A &a) { a.auto_pad = "SAME"; }),
         {"auto_pad = \"SAME\"", "LpPool-11"}},
        {"onnx.auto_pad",
         "auto_pad with a space",
         pool_attrs(18, [](A &a) { a.auto_pad = " VALID"; }),
         {"auto_pad = \" VALID\""}},
        {"onnx.kernel_missing",
         "kernel_shape missing",
         pool_attrs(22,
                    [](A &a) {
                        a.kernel_shape = {};
                        a.strides = {};
                    }),
         {"kernel_shape is missing", "LpPool-22"}},
        {"onnx.kernel_dims",
         "4 spatial dims",
         pool_attrs(22,
                    [](A &a) {
                        a.kernel_shape = {2, 2, 2, 2};
                        a.strides = {};
                    }),
         {"kernel_shape = [2, 2, 2, 2]", "has 4 spatial dims"},
         {2, 3, 4, 4, 4, 4}},
        {"onnx.rank",
         "X of rank 4 for a 1-D kernel",
         pool_attrs(22,
                    [](A &a) {
                        a.kernel_shape = {2};
                        a.strides = {};
                    }),
         {"X.rank = 4", "kernel_shape = [2]", "(rank 3)"}},
        {"onnx.ints_min",
         "zero kernel_shape",
         pool_attrs(22,
                    [](A &a) {
                        a.kernel_shape = {2, 0};
                    }),
         {"kernel_shape[1] = 0", ">= 1"}},
        {"onnx.ints_count",
         "one stride for 2 dims",
         pool_attrs(22, [](A &a) { a.strides = {2}; }),
         {"strides = [2]", "has 1 values", "expects 2"}},
        {"onnx.ints_count",
         "three strides for 2 dims",
         pool_attrs(11,
                    [](A &a) {
                        a.strides = {1, 1, 1};
                    }),
         {"strides = [1, 1, 1]", "has 3 values"}},
        {"onnx.ints_min",
         "zero stride",
         pool_attrs(22,
                    [](A &a) {
                        a.strides = {0, 2};
                    }),
         {"strides[0] = 0", ">= 1"}},
        {"onnx.ints_count",
         "three dilations for 2 dims",
         pool_attrs(18,
                    [](A &a) {
                        a.dilations = {1, 1, 1};
                    }),
         {"dilations = [1, 1, 1]", "has 3 values"}},
        {"onnx.ints_min",
         "zero dilation",
         pool_attrs(22,
                    [](A &a) {
                        a.dilations = {1, 0};
                    }),
         {"dilations[1] = 0"}},
        {"onnx.ints_count",
         "two pads for 2 dims",
         pool_attrs(22,
                    [](A &a) {
                        a.pads = {1, 1};
                    }),
         {"pads = [1, 1]", "has 2 values", "expects 4"}},
        {"onnx.ints_min",
         "negative pad",
         pool_attrs(22,
                    [](A &a) {
                        a.pads = {0, 0, 0, -1};
                    }),
         {"pads[3] = -1", ">= 0"}},
        {"onnx.pads_auto_pad",
         "zero pads with SAME_UPPER",
         pool_attrs(22,
                    [](A &a) {
                        a.pads = {0, 0, 0, 0};
                        a.auto_pad = "SAME_UPPER";
                    }),
         {"pads = [0, 0, 0, 0]", "auto_pad = \"SAME_UPPER\""}},
        {"onnx.pads_auto_pad",
         "pads with SAME_LOWER",
         pool_attrs(11,
                    [](A &a) {
                        a.pads = {1, 1, 1, 1};
                        a.auto_pad = "SAME_LOWER";
                    }),
         {"pads = [1, 1, 1, 1]", "auto_pad = \"SAME_LOWER\""}},
        {"onnx.pads_auto_pad",
         "non-zero pads with VALID",
         pool_attrs(18,
                    [](A &a) {
                        a.pads = {1, 0, 0, 0};
                        a.auto_pad = "VALID";
                    }),
         {"pads = [1, 0, 0, 0]", "auto_pad = \"VALID\""}},
        {"geometry.window",
         "kernel_shape larger than X",
         pool_attrs(22,
                    [](A &a) {
                        a.kernel_shape = {7, 2};
                    }),
         {"input.shape[2] = 6", "kernel[0] = 7"}},
        {"geometry.ceil_drop",
         "ceil_mode window only in the end pads",
         pool_attrs(22,
                    [](A &a) {
                        a.strides = {1, 1};
                        a.pads = {0, 0, 2, 0};
                        a.ceil_mode = 1;
                    }),
         {"input.shape[2] = 0 with pads 0 + 2", "ceil_mode"},
         {2, 3, 0, 8}},
        {"validate.output_shape",
         "strides default to 1",
         pool_attrs(22, [](A &a) { a.strides = {}; }),
         {"output.shape = [2, 3, 3, 4]", "expected [2, 3, 5, 7]"},
         kShape,
         DType::float32,
         {2, 3, 3, 4},
         ErrorCode::shape_mismatch,
         false},
        {"validate.output_shape",
         "ceil_mode sizes",
         pool_attrs(22,
                    [](A &a) {
                        a.kernel_shape = {3, 3};
                        a.ceil_mode = 1;
                    }),
         {"output.shape = [2, 3, 2, 3]", "expected [2, 3, 3, 4]"},
         kShape,
         DType::float32,
         {2, 3, 2, 3},
         ErrorCode::shape_mismatch,
         false},
    };
    PoolCase int_x{"onnx.pool_dtype", "int32 X", pool_attrs(22), {"X.dtype = int32", "LpPool-22"}};
    int_x.dtype = DType::int32;
    PoolCase bf16{"onnx.pool_dtype",
                  "bfloat16 X before opset 22",
                  pool_attrs(18),
                  {"X.dtype = bfloat16", "LpPool-18", "bfloat16 added in opset 22"}};
    bf16.dtype = DType::bfloat16;
    c.push_back(int_x);
    c.push_back(bf16);
    return c;
}

void add_pool_rows(std::vector<Row> *rows) {
    for (const PoolCase &c : pool_cases()) {
        rows->push_back(
            {"onnx::lp_pool", c.site, c.name,
             [c](Buffers &b) {
                 return of(onnx::lp_pool(b.x(c.shape, c.dtype), b.y(c.out_shape, c.dtype), c.a));
             },
             c.code, c.fragments});
        if (c.shape_query) {
            rows->push_back(
                {"onnx::lp_pool_output_shape", c.site, c.name,
                 [c](Buffers &b) {
                     return of(onnx::lp_pool_output_shape(c.shape, c.dtype, c.a, &b.shape_out));
                 },
                 c.code, c.fragments});
        }
    }
}

struct GlobalCase {
    std::string site, name;
    int64_t opset;
    double p;
    std::vector<int64_t> shape;
    DType dtype;
    std::vector<std::string> fragments;
    std::vector<int64_t> out_shape = {2, 3, 1, 1};
    ErrorCode code = kInvalid;
    bool shape_query = true;
};

void add_global_pool_rows(std::vector<Row> *rows) {
    const DType f32 = DType::float32;
    const std::vector<GlobalCase> cases = {
        {"onnx.pool_opset", "opset 0", 0, 2, kShape, f32, {"opset = 0"}},
        {"onnx.pool_dtype",
         "int32 X",
         2,
         2,
         kShape,
         DType::int32,
         {"X.dtype = int32", "GlobalLpPool-2"}},
        {"onnx.pool_dtype",
         "bfloat16 X at opset 21 (as 2)",
         21,
         2,
         kShape,
         DType::bfloat16,
         {"X.dtype = bfloat16", "GlobalLpPool-2", "bfloat16 added in opset 22"}},
        {"onnx.pool_p", "p = 0", 1, 0, kShape, f32, {"p = 0", "GlobalLpPool-1"}},
        {"onnx.pool_p", "p = -inf", 22, -HUGE_VAL, kShape, f32, {"p = -inf", "GlobalLpPool-22"}},
        {"onnx.pool_p_int",
         "p = 1.5 at opset 22",
         22,
         1.5,
         kShape,
         f32,
         {"p = 1.5", "GlobalLpPool-22", "INT"}},
        {"onnx.global_rank", "X of rank 2", 2, 2, {2, 3}, f32, {"X.rank = 2", "GlobalLpPool-2"}},
        {"onnx.global_rank",
         "X of rank 6",
         22,
         2,
         {2, 3, 2, 2, 2, 2},
         f32,
         {"X.rank = 6", "GlobalLpPool-22"}},
        {"onnx.global_shape",
         "an empty spatial dim",
         2,
         2,
         {2, 3, 6, 0},
         f32,
         {"X.shape[3] = 0", ">= 1"}},
        {"validate.output_shape",
         "Y without the size-1 spatial dims",
         2,
         2,
         kShape,
         f32,
         {"output.shape = [2, 3]", "expected [2, 3, 1, 1]"},
         {2, 3},
         ErrorCode::shape_mismatch,
         false},
    };
    for (const GlobalCase &c : cases) {
        onnx::GlobalLpPoolAttributes a;
        a.opset = c.opset;
        a.p = c.p;
        rows->push_back({"onnx::global_lp_pool", c.site, c.name,
                         [c, a](Buffers &b) {
                             return of(onnx::global_lp_pool(b.x(c.shape, c.dtype),
                                                            b.y(c.out_shape, c.dtype), a));
                         },
                         c.code, c.fragments});
        if (c.shape_query) {
            rows->push_back({"onnx::global_lp_pool_output_shape", c.site, c.name,
                             [c, a](Buffers &b) {
                                 return of(onnx::global_lp_pool_output_shape(c.shape, c.dtype, a,
                                                                             &b.shape_out));
                             },
                             c.code, c.fragments});
        }
    }
}

}  // namespace

void add_onnx_rows(std::vector<Row> *rows) {
    add_reduce_rows(rows);
    add_pool_rows(rows);
    add_global_pool_rows(rows);
}

}  // namespace lpnorm::test::bad_input
