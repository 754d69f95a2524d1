// Rows of lpnorm/openvino.h, lpnorm/directml.h and lpnorm/torch.h.
#include <cmath>

#include "bad_input/table.h"
#include "lpnorm/directml.h"
#include "lpnorm/openvino.h"
#include "lpnorm/torch.h"

namespace lpnorm::test::bad_input {

namespace {

const ErrorCode kInvalid = ErrorCode::invalid_argument;

void add_openvino_rows(std::vector<Row> *rows) {
    struct Case {
        std::string site, name;
        std::vector<int64_t> axes;
        std::vector<std::string> fragments;
        std::vector<int64_t> out_shape = {};
        ErrorCode code = kInvalid;
    };
    const std::vector<Case> cases = {
        {"validate.axis_range", "axis out of range", {0, 4}, {"axes[1] = 4", "rank 4"}},
        {"validate.axis_repeat",
         "axis repeated by its negative form",
         {3, -1},
         {"axes[1] = -1", "axes[0] = 3"}},
        {"validate.output_shape",
         "empty axes are the identity",
         {},
         {"output.shape = []", "expected [2, 3, 6, 8]"},
         {},
         ErrorCode::shape_mismatch},
        {"validate.output_shape",
         "keep_dims defaults to false",
         {2, 3},
         {"output.shape = [2, 3, 1, 1]", "expected [2, 3]"},
         {2, 3, 1, 1},
         ErrorCode::shape_mismatch},
    };
    for (const Case &c : cases) {
        for (const std::string op : {"l1", "l2", "lp"}) {
            rows->push_back({"openvino::reduce_" + op, c.site, c.name,
                             [c, op](Buffers &b) {
                                 const Tensor x = b.x(kShape), y = b.y(c.out_shape);
                                 if (op == "l1") return of(openvino::reduce_l1(x, c.axes, y));
                                 if (op == "l2") return of(openvino::reduce_l2(x, c.axes, y));
                                 return of(openvino::reduce_lp(x, c.axes, 2, y));
                             },
                             c.code, c.fragments});
        }
        if (c.code == kInvalid) {
            rows->push_back(
                {"openvino::reduce_output_shape", c.site, c.name,
                 [c](Buffers &b) {
                     return of(openvino::reduce_output_shape(kShape, c.axes, false, &b.shape_out));
                 },
                 c.code, c.fragments});
        }
    }
    for (int64_t p : {3, 0, -1}) {
        rows->push_back({"openvino::reduce_lp",
                         "openvino.reduce_lp_p",
                         "p = " + std::to_string(p),
                         [p](Buffers &b) {
                             return of(openvino::reduce_lp(b.x(kShape), {3}, p, b.y({2, 3, 6})));
                         },
                         kInvalid,
                         {"p = " + std::to_string(p), "1 or 2"}});
    }
}

// NormalizeL2-1: its attributes, then the rules of lpnorm::normalize it reaches (axes given) and
// of the empty-axes path (lpnorm::reduce over a size-1 dim).
void add_openvino_normalize_rows(std::vector<Row> *rows) {
    const double nan = std::nan("");
    struct Case {
        std::string site, name;
        std::vector<int64_t> axes;
        float eps;
        std::string mode;
        std::vector<std::string> fragments;
        ErrorCode code = kInvalid;
        std::vector<int64_t> shape = kShape, out_shape = kShape;
        DType dtype = DType::float32;
        bool shape_query = true;  // a row of normalize_l2_output_shape too
    };
    const std::vector<int64_t> rank8(8, 2), rank9(9, 1);
    const std::vector<Case> cases = {
        {"openvino.normalize_eps_mode",
         "eps_mode mean",
         {3},
         1e-12f,
         "mean",
         {"eps_mode = \"mean\"", "add or max", "(NormalizeL2-1)"}},
        {"openvino.normalize_eps_mode",
         "empty eps_mode, empty axes",
         {},
         1e-12f,
         "",
         {"eps_mode = \"\""}},
        {"openvino.normalize_dtype",
         "int32 data",
         {3},
         1e-12f,
         "add",
         {"data.dtype = int32", "NormalizeL2-1"},
         kInvalid,
         kShape,
         kShape,
         DType::int32,
         false},
        {"openvino.normalize_dtype",
         "int32 data, empty axes",
         {},
         1e-12f,
         "max",
         {"data.dtype = int32"},
         kInvalid,
         kShape,
         kShape,
         DType::int32,
         false},
        {"normalize.eps", "negative eps", {3}, -1.0f, "add", {"eps = -1", "finite and >= 0"}},
        {"normalize.eps", "NaN eps, empty axes", {}, float(nan), "max", {"eps = nan"}},
        {"normalize.eps", "infinite eps", {3}, HUGE_VALF, "max", {"eps = inf"}},
        {"validate.axis_range", "axis 4 of rank 4", {4}, 1e-12f, "add", {"axes[0] = 4", "rank 4"}},
        {"validate.axis_range", "axis -5 of rank 4", {1, -5}, 1e-12f, "add", {"axes[1] = -5"}},
        {"validate.axis_repeat",
         "axis repeated by its negative form",
         {3, -1},
         1e-12f,
         "add",
         {"axes[1] = -1", "axes[0] = 3"}},
        {"validate.output_shape",
         "a reduced shape as output",
         {3},
         1e-12f,
         "add",
         {"output.shape = [2, 3, 6]", "expected [2, 3, 6, 8]"},
         ErrorCode::shape_mismatch,
         kShape,
         {2, 3, 6},
         DType::float32,
         false},
        {"validate.output_shape",
         "a reduced shape as output, empty axes",
         {},
         1e-12f,
         "add",
         {"output.shape = [2, 3, 6]", "expected [2, 3, 6, 8]"},
         ErrorCode::shape_mismatch,
         kShape,
         {2, 3, 6},
         DType::float32,
         false},
        {"openvino.normalize_unit_axis",
         "empty axes at rank 8 without a size-1 dim",
         {},
         1e-12f,
         "add",
         {"axes = [] with data.rank = 8", "NormalizeL2-1"},
         ErrorCode::unsupported,
         rank8,
         rank8},
        {"validate.rank",
         "rank 9, empty axes",
         {},
         1e-12f,
         "add",
         {"input.rank = 9"},
         kInvalid,
         rank9,
         rank9,
         DType::float32,
         false},
        {"validate.rank",
         "rank 9",
         {0},
         1e-12f,
         "add",
         {"input.rank = 9"},
         kInvalid,
         rank9,
         rank9,
         DType::float32,
         false},
    };
    for (const Case &c : cases) {
        rows->push_back({"openvino::normalize_l2", c.site, c.name,
                         [c](Buffers &b) {
                             return of(openvino::normalize_l2(b.x(c.shape, c.dtype), c.axes, c.eps,
                                                              c.mode, b.y(c.out_shape, c.dtype)));
                         },
                         c.code, c.fragments});
        if (c.shape_query) {
            rows->push_back({"openvino::normalize_l2_output_shape", c.site, c.name,
                             [c](Buffers &b) {
                                 return of(openvino::normalize_l2_output_shape(
                                     c.shape, c.axes, c.eps, c.mode, &b.shape_out));
                             },
                             c.code, c.fragments});
        }
    }
    rows->push_back({"openvino::normalize_l2_output_shape",
                     "reduce.shape_rank",
                     "rank 9",
                     [rank9](Buffers &b) {
                         return of(openvino::normalize_l2_output_shape(rank9, {0}, 1e-12f, "add",
                                                                       &b.shape_out));
                     },
                     kInvalid,
                     {"input.rank = 9", "[0, 8]"}});
    rows->push_back({"openvino::normalize_l2_output_shape",
                     "reduce.shape_negative",
                     "negative dim, empty axes",
                     [](Buffers &b) {
                         return of(openvino::normalize_l2_output_shape({2, -3, 4}, {}, 1e-12f,
                                                                       "max", &b.shape_out));
                     },
                     kInvalid,
                     {"input.shape[1] = -3"}});
}

struct DmlCase {
    std::string site, name;
    std::function<void(directml::LpPooling1OperatorDesc &)> edit;
    std::vector<std::string> fragments;  // "{op}" stands for the operator's name
    ErrorCode code = kInvalid;
    std::vector<int64_t> shape = kShape, out_shape = {2, 3, 3, 4};
    DType dtype = DType::float32, out_dtype = DType::float32;
    bool dilated_only = false;     // a LP_POOLING1 field
    std::string dilated_fragment;  // replaces the last fragment for LP_POOLING1
};

void add_directml_rows(std::vector<Row> *rows) {
    using D = directml::LpPooling1OperatorDesc;
    const std::string sizes3 = "(InputTensor.Sizes[3] + StartPadding[1] + EndPadding[1] - ";
    std::vector<DmlCase> cases = {
        {"dml.dimension_count",
         "DimensionCount 1",
         [](D &d) { d.DimensionCount = 1; },
         {"DimensionCount = 1", "({op})"}},
        {"dml.dimension_count",
         "DimensionCount 4",
         [](D &d) { d.DimensionCount = 4; },
         {"DimensionCount = 4"}},
        {"dml.array_count",
         "one stride",
         [](D &d) { d.Strides = {2}; },
         {"Strides = [2]", "has 1 values", "DimensionCount = 2", "({op})"}},
        {"dml.array_count",
         "three window sizes",
         [](D &d) {
             d.WindowSize = {2, 2, 2};
         },
         {"WindowSize = [2, 2, 2]", "has 3 values"}},
        {"dml.array_count",
         "no start padding",
         [](D &d) { d.StartPadding = {}; },
         {"StartPadding = []", "has 0 values"}},
        {"dml.array_count",
         "one end padding",
         [](D &d) { d.EndPadding = {0}; },
         {"EndPadding = [0]", "has 1 values"}},
        {"dml.array_min",
         "zero stride",
         [](D &d) {
             d.Strides = {2, 0};
         },
         {"Strides[1] = 0", ">= 1", "({op})"}},
        {"dml.array_min",
         "zero window",
         [](D &d) {
             d.WindowSize = {0, 2};
         },
         {"WindowSize[0] = 0", ">= 1"}},
        {"dml.p", "P = 0", [](D &d) { d.P = 0; }, {"P = 0", ">= 1", "({op})"}},
        {"dml.input_rank",
         "4-D input for DimensionCount 3",
         [](D &d) {
             d.DimensionCount = 3;
             d.Strides = d.WindowSize = d.Dilations = {1, 1, 1};
             d.StartPadding = d.EndPadding = {0, 0, 0};
         },
         {"InputTensor has 4 dimensions", "DimensionCount = 3", "needs 5"}},
        {"dml.output_dtype",
         "float16 output of float32",
         nullptr,
         {"OutputTensor.DataType = float16", "InputTensor.DataType = float32"},
         ErrorCode::dtype_mismatch,
         kShape,
         {2, 3, 3, 4},
         DType::float32,
         DType::float16},
        {"dml.output_rank",
         "3-D output",
         nullptr,
         {"OutputTensor has 3 dimensions", "InputTensor has 4"},
         ErrorCode::shape_mismatch,
         kShape,
         {2, 3, 3}},
        {"dml.output_sizes",
         "one output column too many",
         nullptr,
         {"OutputTensor.Sizes[3] = 5", "expected 4", sizes3 + "WindowSize[1]) / Strides[1] + 1"},
         ErrorCode::shape_mismatch,
         kShape,
         {2, 3, 3, 5},
         DType::float32,
         DType::float32,
         false,
         sizes3 + "(WindowSize[1] - 1) * Dilations[1] - 1) / Strides[1] + 1"},
        {"dml.output_sizes",
         "batch size differs",
         nullptr,
         {"OutputTensor.Sizes[0] = 1", "expected 2 = InputTensor.Sizes[0]"},
         ErrorCode::shape_mismatch,
         kShape,
         {1, 3, 3, 4}},
        {"geometry.window",
         "window larger than the input",
         [](D &d) {
             d.WindowSize = {7, 2};
         },
         {"input.shape[2] = 6", "kernel[0] = 7"}},
        // LP_POOLING1 only.
        {"dml.array_count",
         "two dilations short",
         [](D &d) { d.Dilations = {1}; },
         {"Dilations = [1]", "has 1 values"},
         kInvalid,
         kShape,
         {2, 3, 3, 4},
         DType::float32,
         DType::float32,
         true},
        {"dml.array_min",
         "zero dilation",
         [](D &d) {
             d.Dilations = {1, 0};
         },
         {"Dilations[1] = 0", ">= 1"},
         kInvalid,
         kShape,
         {2, 3, 3, 4},
         DType::float32,
         DType::float32,
         true},
        {"dml.output_sizes",
         "sizes without the dilation",
         [](D &d) {
             d.Dilations = {2, 1};
         },
         {"OutputTensor.Sizes[2] = 3", "expected 2",
          "(InputTensor.Sizes[2] + StartPadding[0] + EndPadding[0] - (WindowSize[0] - 1) * "
          "Dilations[0] - 1) / Strides[0] + 1"},
         ErrorCode::shape_mismatch,
         kShape,
         {2, 3, 3, 4},
         DType::float32,
         DType::float32,
         true},
    };
    for (DType d : {DType::float64, DType::bfloat16}) {
        DmlCase c{"dml.input_dtype",
                  std::string(dtype_name(d)) + " input",
                  nullptr,
                  {std::string("InputTensor.DataType = ") + dtype_name(d), "FLOAT32 or FLOAT16"}};
        c.dtype = c.out_dtype = d;
        cases.push_back(c);
    }
    for (const DmlCase &c : cases) {
        for (const bool dilated : {false, true}) {
            if (c.dilated_only && !dilated) continue;
            const std::string op = dilated ? "DML_OPERATOR_LP_POOLING1" : "DML_OPERATOR_LP_POOLING";
            std::vector<std::string> fragments = c.fragments;
            for (std::string &f : fragments) {
                if (f == "({op})") f = "(" + op + ")";
            }
            if (dilated && !c.dilated_fragment.empty()) fragments.back() = c.dilated_fragment;
            rows->push_back(
                {dilated ? "directml::lp_pooling1" : "directml::lp_pooling", c.site, c.name,
                 [c, dilated](Buffers &b) {
                     D d;
                     d.Strides = d.WindowSize = {2, 2};
                     d.StartPadding = d.EndPadding = {0, 0};
                     d.Dilations = {1, 1};
                     if (c.edit) c.edit(d);
                     const Tensor x = b.x(c.shape, c.dtype), y = b.y(c.out_shape, c.out_dtype);
                     if (dilated) return of(directml::lp_pooling1(x, y, d));
                     const directml::LpPoolingOperatorDesc d0{d.DimensionCount, d.Strides,
                                                              d.WindowSize,     d.StartPadding,
                                                              d.EndPadding,     d.P};
                     return of(directml::lp_pooling(x, y, d0));
                 },
                 c.code, fragments});
        }
    }
}

// DML_OPERATOR_LP_NORMALIZATION: the desc's fields, then the tensors.
void add_directml_normalization_rows(std::vector<Row> *rows) {
    using D = directml::LpNormalizationOperatorDesc;
    struct Case {
        std::string site, name;
        std::function<void(D &)> edit;
        std::vector<std::string> fragments;
        ErrorCode code = kInvalid;
        std::vector<int64_t> shape = kShape, out_shape = kShape;
        DType dtype = DType::float32, out_dtype = DType::float32;
    };
    const std::string op = "(DML_OPERATOR_LP_NORMALIZATION)";
    std::vector<Case> cases = {
        {"dml.norm_p", "P = 0", [](D &d) { d.P = 0; }, {"P = 0", "not 1 or 2", op}},
        {"dml.norm_p", "P = 3", [](D &d) { d.P = 3; }, {"P = 3"}},
        {"dml.norm_epsilon",
         "negative Epsilon",
         [](D &d) { d.Epsilon = -1; },
         {"Epsilon = -1", "finite and >= 0", op}},
        {"dml.norm_epsilon",
         "NaN Epsilon",
         [](D &d) { d.Epsilon = std::nanf(""); },
         {"Epsilon = nan"}},
        {"dml.norm_epsilon",
         "infinite Epsilon",
         [](D &d) { d.Epsilon = HUGE_VALF; },
         {"Epsilon = inf"}},
        {"dml.norm_input_rank",
         "0-D input",
         nullptr,
         {"InputTensor has 0 dimensions", "takes 1 to 8"},
         kInvalid,
         {},
         {}},
        {"dml.norm_input_rank",
         "9-D input",
         nullptr,
         {"InputTensor has 9 dimensions"},
         kInvalid,
         std::vector<int64_t>(9, 1),
         std::vector<int64_t>(9, 1)},
        {"dml.output_dtype",
         "float16 output of float32",
         nullptr,
         {"OutputTensor.DataType = float16", "InputTensor.DataType = float32", op},
         ErrorCode::dtype_mismatch,
         kShape,
         kShape,
         DType::float32,
         DType::float16},
        {"dml.output_rank",
         "3-D output",
         nullptr,
         {"OutputTensor has 3 dimensions", "InputTensor has 4"},
         ErrorCode::shape_mismatch,
         kShape,
         {2, 3, 6}},
        {"dml.norm_axis",
         "Axis 4 of a 4-D input",
         [](D &d) { d.Axis = 4; },
         {"Axis = 4", "InputTensor has 4 dimensions", op}},
        {"dml.norm_output_sizes",
         "one output column too many",
         nullptr,
         {"OutputTensor.Sizes[3] = 9", "InputTensor.Sizes[3] = 8", op},
         ErrorCode::shape_mismatch,
         kShape,
         {2, 3, 6, 9}},
        {"dml.norm_output_sizes",
         "batch size differs",
         nullptr,
         {"OutputTensor.Sizes[0] = 1", "InputTensor.Sizes[0] = 2"},
         ErrorCode::shape_mismatch,
         kShape,
         {1, 3, 6, 8}},
    };
    for (DType d : {DType::float64, DType::bfloat16}) {
        Case c{"dml.input_dtype",
               std::string(dtype_name(d)) + " input",
               nullptr,
               {std::string("InputTensor.DataType = ") + dtype_name(d), "FLOAT32 or FLOAT16"}};
        c.dtype = c.out_dtype = d;
        cases.push_back(c);
    }
    for (const Case &c : cases) {
        rows->push_back({"directml::lp_normalization", c.site, c.name,
                         [c](Buffers &b) {
                             D d;
                             d.Axis = 1;
                             if (c.edit) c.edit(d);
                             return of(directml::lp_normalization(
                                 b.x(c.shape, c.dtype), b.y(c.out_shape, c.out_dtype), d));
                         },
                         c.code, c.fragments});
    }
}

void add_torch_pool_rows(std::vector<Row> *rows) {
    struct Geometry {
        std::vector<int64_t> in, out;
    };
    const Geometry geometries[3] = {
        {{2, 3, 8}, {2, 3, 4}}, {kShape, {2, 3, 3, 4}}, {{2, 3, 4, 6, 8}, {2, 3, 2, 3, 4}}};
    for (size_t k = 1; k <= 3; k++) {
        const std::string fn = "lp_pool" + std::to_string(k) + "d";
        const Geometry g = geometries[k - 1];
        struct Case {
            std::string site, name;
            double norm;
            std::vector<int64_t> kernel, stride;
            std::vector<std::string> fragments;
            std::vector<int64_t> in, out;
            ErrorCode code = kInvalid;
        };
        const std::vector<int64_t> too_many(k + 1, 2), unbatched_in(g.in.begin() + 1, g.in.end());
        std::vector<int64_t> bad_stride(k, 1);
        bad_stride.back() = 0;
        std::vector<int64_t> rank_up = g.in;
        rank_up.push_back(1);
        std::vector<Case> cases = {
            {"torch.norm_type", "norm_type 0", 0, {2}, {}, {"norm_type = 0", fn}, g.in, g.out},
            {"torch.norm_type",
             "negative norm_type",
             -1,
             {2},
             {},
             {"norm_type = -1", fn},
             g.in,
             g.out},
            {"torch.norm_type",
             "NaN norm_type",
             std::nan(""),
             {2},
             {},
             {"norm_type = nan", fn},
             g.in,
             g.out},
            {"torch.norm_type",
             "inf norm_type",
             HUGE_VAL,
             {2},
             {},
             {"norm_type = inf", fn},
             g.in,
             g.out},
            {"torch.expand_count",
             "kernel_size of k + 1 values",
             2,
             too_many,
             {},
             {"kernel_size = " + adapter_text::list(too_many),
              "single int or " + std::to_string(k) + " ints", fn},
             g.in,
             g.out},
            {"torch.expand_count",
             "empty kernel_size",
             2,
             {},
             {},
             {"kernel_size = []", fn},
             g.in,
             g.out},
            {"torch.expand_min",
             "zero kernel_size",
             2,
             {0},
             {},
             {"kernel_size[0] = 0", ">= 1", fn},
             g.in,
             g.out},
            {"torch.expand_count",
             "stride of k + 1 values",
             2,
             {2},
             too_many,
             {"stride = " + adapter_text::list(too_many), fn},
             g.in,
             g.out},
            {"torch.expand_min",
             "zero stride",
             2,
             {2},
             bad_stride,
             {"stride[" + std::to_string(k - 1) + "] = 0", fn},
             g.in,
             g.out},
            {"torch.input_rank",
             "rank k + 3",
             2,
             {2},
             {},
             {"input.rank = " + std::to_string(k + 3), fn},
             rank_up,
             g.out},
            {"torch.input_rank",
             "rank k",
             2,
             {2},
             {},
             {"input.rank = " + std::to_string(k), fn},
             std::vector<int64_t>(g.in.begin() + 2, g.in.end()),
             g.out},
            {"torch.output_rank",
             "batched output of an unbatched input",
             2,
             {2},
             {},
             {"output.rank = " + std::to_string(k + 2), "input.rank = " + std::to_string(k + 1),
              fn},
             unbatched_in,
             g.out,
             ErrorCode::shape_mismatch},
            {"validate.output_shape",
             "stride defaults to kernel_size",
             2,
             {2},
             {},
             {"output.shape = " + adapter_text::list(g.in),
              "expected " + adapter_text::list(g.out)},
             g.in,
             g.in,
             ErrorCode::shape_mismatch},
            {"geometry.window",
             "kernel_size larger than the input",
             2,
             {9},
             {1},
             {"kernel[0] = 9"},
             g.in,
             g.out},
        };
        for (const Case &c : cases) {
            rows->push_back({"torch::" + fn, c.site, c.name,
                             [c, k](Buffers &b) {
                                 const Tensor x = b.x(c.in), y = b.y(c.out);
                                 if (k == 1)
                                     return of(torch::lp_pool1d(x, y, c.norm, c.kernel, c.stride));
                                 if (k == 2)
                                     return of(torch::lp_pool2d(x, y, c.norm, c.kernel, c.stride));
                                 return of(torch::lp_pool3d(x, y, c.norm, c.kernel, c.stride));
                             },
                             c.code, c.fragments});
        }
    }
    // ceil_mode defaults to false: kernel 4 on [2, 3, 6, 8] gives [2, 3, 1, 2], not ceil's [2, 3,
    // 2, 2].
    rows->push_back({"torch::lp_pool2d",
                     "validate.output_shape",
                     "ceil_mode defaults to false",
                     [](Buffers &b) {
                         return of(torch::lp_pool2d(b.x(kShape), b.y({2, 3, 2, 2}), 2, {4}));
                     },
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 2, 2]", "expected [2, 3, 1, 2]"}});
    // An unbatched output of the wrong size (lpnorm reports it with the batch dim it adds).
    rows->push_back({"torch::lp_pool2d",
                     "validate.output_shape",
                     "unbatched output of the wrong size",
                     [](Buffers &b) {
                         return of(torch::lp_pool2d(b.x({3, 6, 8}), b.y({3, 3, 5}), 2, {2}));
                     },
                     ErrorCode::shape_mismatch,
                     {"output.shape = [", "3, 3, 5]", "3, 3, 4]"}});
}

void add_vector_norm_rows(std::vector<Row> *rows) {
    struct Case {
        std::string site, name;
        std::vector<int64_t> shape;
        DType dtype;
        double ord;
        std::vector<int64_t> dim;
        std::vector<std::string> fragments;
        std::vector<int64_t> out_shape = {};
        ErrorCode code = kInvalid;
    };
    const DType f32 = DType::float32;
    const double inf = HUGE_VAL;
    const std::vector<Case> cases = {
        {"torch.vn_dtype", "int32 input", kShape, DType::int32, 2, {}, {"Got int32"}},
        {"torch.vn_dtype", "uint8 input", kShape, DType::uint8, 1, {}, {"Got uint8"}},
        {"torch.vn_ord", "ord -1", kShape, f32, -1, {}, {"ord = -1"}},
        {"torch.vn_ord", "ord -0.5", kShape, f32, -0.5, {}, {"ord = -0.5"}},
        {"torch.vn_ord", "NaN ord", kShape, f32, std::nan(""), {}, {"ord = nan"}},
        {"torch.vn_empty",
         "inf norm of an empty tensor",
         {0, 3},
         f32,
         inf,
         {},
         {"inf norm on an empty tensor"}},
        {"torch.vn_empty",
         "-inf norm of an empty tensor",
         {3, 0},
         DType::float16,
         -inf,
         {},
         {"-inf norm on an empty tensor"}},
        {"torch.vn_empty_dim",
         "inf norm over an empty dim",
         {0, 3},
         f32,
         inf,
         {0},
         {"inf norm", "dimension 0"}},
        {"torch.vn_empty_dim",
         "-inf norm over an empty dim (negative dim)",
         {0, 3},
         DType::float64,
         -inf,
         {-2},
         {"-inf norm", "dimension -2"}},
        {"validate.axis_range", "dim out of range", kShape, f32, 2, {4}, {"axes[0] = 4", "rank 4"}},
        {"validate.axis_range",
         "dim 1 of a 0-d tensor",
         {},
         f32,
         2,
         {1},
         {"axes[0] = 1", "rank 0"}},
        {"validate.axis_repeat",
         "dim repeated",
         kShape,
         f32,
         2,
         {1, -3},
         {"axes[1] = -3", "axes[0] = 1"}},
        {"validate.rank", "rank 9", std::vector<int64_t>(9, 1), f32, inf, {}, {"input.rank = 9"}},
        {"validate.output_shape",
         "keepdim defaults to false",
         kShape,
         f32,
         2,
         {3},
         {"output.shape = [2, 3, 6, 1]", "expected [2, 3, 6]"},
         {2, 3, 6, 1},
         ErrorCode::shape_mismatch},
    };
    for (const Case &c : cases) {
        rows->push_back({"torch::vector_norm", c.site, c.name,
                         [c](Buffers &b) {
                             return of(torch::vector_norm(b.x(c.shape, c.dtype),
                                                          b.y(c.out_shape, c.dtype), c.ord, c.dim));
                         },
                         c.code, c.fragments});
    }
}

// F.normalize: its p, then the rules of lpnorm::normalize it reaches.
void add_torch_normalize_rows(std::vector<Row> *rows) {
    struct Case {
        std::string site, name;
        double p;
        std::vector<int64_t> dim;
        double eps;
        std::vector<std::string> fragments;
        std::vector<int64_t> shape = kShape, out_shape = kShape;
        DType dtype = DType::float32;
        ErrorCode code = kInvalid;
    };
    const double inf = HUGE_VAL;
    const std::vector<int64_t> rank9(9, 1);
    const std::vector<Case> cases = {
        {"torch.normalize_p", "p 0", 0, {1}, 1e-12, {"p = 0", "p > 0 or inf", "(normalize)"}},
        {"torch.normalize_p", "negative p", -1, {1}, 1e-12, {"p = -1"}},
        {"torch.normalize_p", "p -inf", -inf, {1}, 1e-12, {"p = -inf"}},
        {"torch.normalize_p", "NaN p", std::nan(""), {1}, 1e-12, {"p = nan"}},
        {"normalize.eps", "negative eps", 2, {1}, -1, {"eps = -1", "finite and >= 0"}},
        {"normalize.eps", "infinite eps", 2, {1}, inf, {"eps = inf"}},
        {"normalize.eps", "NaN eps", 2, {1}, std::nan(""), {"eps = nan"}},
        {"validate.axis_range", "dim 4 of rank 4", 2, {4}, 1e-12, {"axes[0] = 4", "rank 4"}},
        {"validate.axis_range",
         "dim 1 (the default) of a 1-D tensor",
         2,
         {1},
         1e-12,
         {"axes[0] = 1", "rank 1"},
         {8},
         {8}},
        {"validate.axis_repeat",
         "dim repeated",
         2,
         {1, -3},
         1e-12,
         {"axes[1] = -3", "repeats axes[0]"}},
        {"normalize.dtype",
         "int32 input",
         2,
         {1},
         1e-12,
         {"input.dtype = int32"},
         kShape,
         kShape,
         DType::int32},
        {"validate.rank", "rank 9, no dim", 2, {}, 1e-12, {"input.rank = 9"}, rank9, rank9},
        {"validate.output_shape",
         "a reduced shape as output",
         2,
         {1},
         1e-12,
         {"output.shape = [2, 6, 8]", "expected [2, 3, 6, 8]"},
         kShape,
         {2, 6, 8},
         DType::float32,
         ErrorCode::shape_mismatch},
    };
    for (const Case &c : cases) {
        rows->push_back({"torch::normalize", c.site, c.name,
                         [c](Buffers &b) {
                             return of(torch::normalize(b.x(c.shape, c.dtype),
                                                        b.y(c.out_shape, c.dtype), c.p, c.dim,
                                                        c.eps));
                         },
                         c.code, c.fragments});
    }
}

}  // namespace

void add_other_adapter_rows(std::vector<Row> *rows) {
    add_openvino_rows(rows);
    add_openvino_normalize_rows(rows);
    add_directml_rows(rows);
    add_directml_normalization_rows(rows);
    add_torch_pool_rows(rows);
    add_vector_norm_rows(rows);
    add_torch_normalize_rows(rows);
}

}  // namespace lpnorm::test::bad_input
