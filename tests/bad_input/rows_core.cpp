// Rows of the C++ API (lpnorm.h): reduce, reduce_output_shape, pool, pool_output_shape,
// pool_geometry, set_isa.
#include <set>

#include "bad_input/table.h"
#include "test_util.h"

namespace lpnorm::test::bad_input {

namespace {

const ErrorCode kInvalid = ErrorCode::invalid_argument;

// A dtype no reduction kernel was compiled for (LPNORM_DTYPES narrows the build), if any.
bool missing_reduce_dtype(DType *out) {
    std::set<int> have;
    for (const VariantInfo &v : compiled_variants()) {
        if (v.op == "reduce") have.insert(int(v.dtype));
    }
    for (int d = 0; d < kNumDTypes; d++) {
        if (!have.count(d)) {
            *out = DType(d);
            return true;
        }
    }
    return false;
}

// A pooling dtype no 2-D pooling kernel was compiled for, if any.
bool missing_pool_dtype(DType *out) {
    std::set<int> have;
    for (const VariantInfo &v : compiled_variants()) {
        if (v.op == "pool" && v.pattern == "2d") have.insert(int(v.dtype));
    }
    for (DType d : {DType::float32, DType::float16, DType::bfloat16, DType::float64}) {
        if (!have.count(int(d))) {
            *out = d;
            return true;
        }
    }
    return false;
}

bool isa_compiled(Isa isa) {
    for (const VariantInfo &v : compiled_variants()) {
        if (v.isa == isa) return true;
    }
    return false;
}

void add_reduce_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm::reduce";
    for (const std::string which : {"input", "output"}) {
        for (const TensorRule &t : tensor_rules(which)) {
            const bool in = which == "input";
            rows->push_back({e, t.site, which + ": " + t.name,
                             [t, in](Buffers &b) {
                                 const Tensor bad = t.make(b);
                                 return of(reduce(in ? bad : b.x(kShape), in ? b.y({}) : bad,
                                                  reduce_params({})));
                             },
                             t.code, t.fragments});
        }
    }
    for (const ReduceRule &r : reduce_attribute_rules()) {
        rows->push_back({e, r.site, r.name,
                         [r](Buffers &b) { return of(reduce(b.x(r.shape), b.y({}), r.params)); },
                         kInvalid, r.fragments});
    }
    auto call = [](std::function<Tensor(Buffers &)> in, std::function<Tensor(Buffers &)> out,
                   ReduceParams p) {
        return [=](Buffers &b) { return of(reduce(in(b), out(b), p)); };
    };
    auto x = [](DType d = DType::float32) { return [d](Buffers &b) { return b.x(kShape, d); }; };
    auto y = [](std::vector<int64_t> s, DType d = DType::float32) {
        return [s, d](Buffers &b) { return b.y(s, d); };
    };
    rows->push_back({e,
                     "validate.output_dtype",
                     "float16 output of float32",
                     call(x(), y({2, 3, 6}, DType::float16), reduce_params({3})),
                     ErrorCode::dtype_mismatch,
                     {"output.dtype = float16", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.output_dtype",
                     "float32 output of int32",
                     call(x(DType::int32), y({2, 3, 6}), reduce_params({3})),
                     ErrorCode::dtype_mismatch,
                     {"output.dtype = float32", "input.dtype = int32"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "the reduced dim left in",
                     call(x(), y({2, 3, 6}), reduce_params({2})),
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 6]", "expected [2, 3, 8]"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "keep_dims needs the size-1 dim",
                     call(x(), y({2, 3, 8}), reduce_params({2}, 2, EmptyAxes::reduce_all, true)),
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 8]", "expected [2, 3, 1, 8]"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "empty axes under identity keep every dim",
                     call(x(), y({}), reduce_params({}, 2, EmptyAxes::identity)),
                     ErrorCode::shape_mismatch,
                     {"output.shape = []", "expected [2, 3, 6, 8]"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "empty axes under reduce_all give a scalar",
                     call(x(), y({1}), reduce_params({})),
                     ErrorCode::shape_mismatch,
                     {"output.shape = [1]", "expected []"}});
    rows->push_back(
        {e,
         "validate.output_dense",
         "strided output",
         call(
             x(),
             [](Buffers &b) {
                 return Tensor::strided(b.out.data(), DType::float32, {2, 3, 6}, {36, 12, 2});
             },
             reduce_params({3})),
         kInvalid,
         {"output.strides = [36, 12, 2]", "shape [2, 3, 6]"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "output at the input's first byte",
                     call(
                         x(),
                         [](Buffers &b) {
                             return Tensor::contiguous(b.in.data(), DType::float32, {2, 3, 6});
                         },
                         reduce_params({3})),
                     ErrorCode::aliasing,
                     {"input", "output", "overlap"}});
    rows->push_back(
        {e,
         "validate.aliasing",
         "output over the input's last element",
         call(
             x(),
             [](Buffers &b) {
                 return Tensor::contiguous(b.in.data() + 287 * 4, DType::float32, {2, 3, 6});
             },
             reduce_params({3})),
         ErrorCode::aliasing,
         {"input", "output", "overlap"}});
    rows->push_back({e,
                     "validate.aliasing",
                     "identity copy onto itself",
                     call(
                         x(), [](Buffers &b) { return b.x(kShape); },
                         reduce_params({}, 2, EmptyAxes::identity)),
                     ErrorCode::aliasing,
                     {"input", "output", "overlap"}});
    rows->push_back({e,
                     "validate.memory",
                     "a memory kind that does not exist",
                     call(
                         [](Buffers &b) {
                             Tensor t = b.x(kShape);
                             t.memory = Memory(7);
                             return t;
                         },
                         y({2, 3, 6}), reduce_params({3})),
                     kInvalid,
                     {"input.memory = 7", "Memory"}});
    rows->push_back({e,
                     "validate.same_cl_mem",
                     "one cl_mem as input and output",
                     call(
                         [](Buffers &b) {
                             Tensor t = Tensor::contiguous(b.in.data(), DType::float32, {2, 3, 6});
                             t.memory = Memory::opencl;
                             return t;
                         },
                         [](Buffers &b) {
                             Tensor t = Tensor::contiguous(b.in.data(), DType::float32, {2, 3, 6});
                             t.memory = Memory::opencl;
                             return t;
                         },
                         reduce_params({}, 2, EmptyAxes::identity)),
                     ErrorCode::aliasing,
                     {"same OpenCL buffer"}});
    rows->push_back({e,
                     "gpu.memory_mismatch",
                     "host input, CUDA output",
                     call(
                         x(),
                         [](Buffers &b) {
                             Tensor t = b.y({2, 3, 6});
                             t.memory = Memory::cuda;
                             return t;
                         },
                         reduce_params({3})),
                     kInvalid,
                     {"output.memory = cuda", "input.memory = host"}});
    rows->push_back({e,
                     "reduce.no_kernel",
                     "a dtype this build has no kernel for",
                     [](Buffers &b) {
                         DType d = DType::float32;
                         missing_reduce_dtype(&d);
                         return of(reduce(b.x(kShape, d), b.y({2, 3, 6}, d), reduce_params({3})));
                     },
                     ErrorCode::unsupported,
                     {"kernel for dtype", "at isa"},
                     [] {
                         DType d;
                         return missing_reduce_dtype(&d)
                                    ? std::string()
                                    : "every dtype has reduction kernels in this build";
                     }});
}

void add_reduce_output_shape_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm::reduce_output_shape";
    for (const ReduceRule &r : reduce_attribute_rules()) {
        rows->push_back(
            {e, r.site, r.name,
             [r](Buffers &b) { return of(reduce_output_shape(r.shape, r.params, &b.shape_out)); },
             kInvalid, r.fragments});
    }
    rows->push_back({e,
                     "reduce.shape_rank",
                     "rank 9",
                     [](Buffers &b) {
                         return of(reduce_output_shape(std::vector<int64_t>(9, 1),
                                                       reduce_params({0}), &b.shape_out));
                     },
                     kInvalid,
                     {"input.rank = 9", "[0, 8]"}});
    rows->push_back(
        {e,
         "reduce.shape_negative",
         "negative dim",
         [](Buffers &b) {
             return of(reduce_output_shape({2, -3, 4}, reduce_params({0}), &b.shape_out));
         },
         kInvalid,
         {"input.shape[1] = -3"}});
}

void add_pool_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm::pool";
    const PoolParams base = pool_params({2, 2}, {2, 2});
    for (const std::string which : {"input", "output"}) {
        for (const TensorRule &t : tensor_rules(which)) {
            const bool in = which == "input";
            rows->push_back(
                {e, t.site, which + ": " + t.name,
                 [t, in, base](Buffers &b) {
                     const Tensor bad = t.make(b);
                     return of(pool(in ? bad : b.x(kShape), in ? b.y({2, 3, 3, 4}) : bad, base));
                 },
                 t.code, t.fragments});
        }
    }
    for (DType d : {DType::int32, DType::uint8, DType::int64}) {
        rows->push_back({e,
                         "pool.dtype",
                         std::string(dtype_name(d)) + " input",
                         [d, base](Buffers &b) {
                             return of(pool(b.x(kShape, d), b.y({2, 3, 3, 4}, d), base));
                         },
                         kInvalid,
                         {std::string("input.dtype = ") + dtype_name(d)}});
    }
    for (const PoolRule &r : pool_attribute_rules()) {
        rows->push_back({e, r.site, r.name,
                         [r](Buffers &b) {
                             return of(pool(b.x(r.shape), b.y({2, 3, 3, 4}), r.params));
                         },
                         r.code, r.fragments});
    }
    auto call = [](std::function<Tensor(Buffers &)> out, PoolParams p, DType d = DType::float32) {
        return [=](Buffers &b) { return of(pool(b.x(kShape, d), out(b), p)); };
    };
    auto y = [](std::vector<int64_t> s, DType d = DType::float32) {
        return [s, d](Buffers &b) { return b.y(s, d); };
    };
    PoolParams ceil3 = pool_params({3, 3}, {2, 2});
    ceil3.ceil_mode = true;
    PoolParams same3 = pool_params({3, 3}, {2, 2});
    same3.auto_pad = AutoPad::same_upper;
    rows->push_back({e,
                     "validate.output_dtype",
                     "float64 output of float32",
                     call(y({2, 3, 3, 4}, DType::float64), base),
                     ErrorCode::dtype_mismatch,
                     {"output.dtype = float64", "input.dtype = float32"}});
    rows->push_back({e,
                     "validate.output_dtype",
                     "bfloat16 output of float16",
                     call(y({2, 3, 3, 4}, DType::bfloat16), base, DType::float16),
                     ErrorCode::dtype_mismatch,
                     {"output.dtype = bfloat16", "input.dtype = float16"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "one output too many",
                     call(y({2, 3, 3, 5}), base),
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 3, 5]", "expected [2, 3, 3, 4]"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "floor sizes under ceil_mode",
                     call(y({2, 3, 2, 3}), ceil3),
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 2, 3]", "expected [2, 3, 3, 4]"}});
    rows->push_back({e,
                     "validate.output_shape",
                     "unpadded sizes under SAME_UPPER",
                     call(y({2, 3, 2, 3}), same3),
                     ErrorCode::shape_mismatch,
                     {"output.shape = [2, 3, 2, 3]", "expected [2, 3, 3, 4]"}});
    rows->push_back(
        {e,
         "validate.output_dense",
         "strided output",
         call(
             [](Buffers &b) {
                 return Tensor::strided(b.out.data(), DType::float32, {2, 3, 3, 4}, {72, 24, 8, 2});
             },
             base),
         kInvalid,
         {"output.strides = [72, 24, 8, 2]", "shape [2, 3, 3, 4]"}});
    rows->push_back(
        {e,
         "validate.aliasing",
         "output inside the input",
         call(
             [](Buffers &b) {
                 return Tensor::contiguous(b.in.data() + 64, DType::float32, {2, 3, 3, 4});
             },
             base),
         ErrorCode::aliasing,
         {"input", "output", "overlap"}});
    rows->push_back({e,
                     "pool.no_kernel",
                     "a dtype this build has no 2-D kernel for",
                     [base](Buffers &b) {
                         DType d = DType::float32;
                         missing_pool_dtype(&d);
                         return of(pool(b.x(kShape, d), b.y({2, 3, 3, 4}, d), base));
                     },
                     ErrorCode::unsupported,
                     {"2-D pooling kernel for dtype", "at isa"},
                     [] {
                         DType d;
                         return missing_pool_dtype(&d)
                                    ? std::string()
                                    : "every pooling dtype has 2-D kernels in this build";
                     }});
}

void add_pool_shape_rows(std::vector<Row> *rows) {
    const std::vector<std::pair<std::vector<int64_t>, std::string>> negative = {
        {{2, 3, -1, 8}, "input.shape[2] = -1"}, {{-2, 3, 6, 8}, "input.shape[0] = -2"}};
    for (const bool geometry : {false, true}) {
        const std::string e = geometry ? "lpnorm::pool_geometry" : "lpnorm::pool_output_shape";
        auto query = [geometry](Buffers &b, const std::vector<int64_t> &shape,
                                const PoolParams &p) {
            return of(geometry ? pool_geometry(shape, p, &b.geometry_out)
                               : pool_output_shape(shape, p, &b.shape_out));
        };
        for (const PoolRule &r : pool_attribute_rules()) {
            rows->push_back({e, r.site, r.name,
                             [r, query](Buffers &b) { return query(b, r.shape, r.params); }, r.code,
                             r.fragments});
        }
        for (const auto &n : negative) {
            rows->push_back({e,
                             "geometry.negative",
                             "negative dim " + n.second,
                             [n, query](Buffers &b) {
                                 return query(b, n.first, pool_params({2, 2}));
                             },
                             kInvalid,
                             {n.second}});
        }
    }
}

void add_set_isa_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm::set_isa";
    for (int v : {8, -1, 7}) {
        rows->push_back({e,
                         "settings.isa_value",
                         "Isa code " + std::to_string(v),
                         [v](Buffers &) { return of(set_isa(static_cast<Isa>(v))); },
                         kInvalid,
                         {"isa = " + std::to_string(v)}});
    }
    for (Isa isa : all_isas()) {
        const std::string name = isa_name(isa);
        rows->push_back(
            {e,
             "settings.isa_cpu",
             name + " on a CPU without it",
             [isa](Buffers &) { return of(set_isa(isa)); },
             ErrorCode::unsupported,
             {"isa = " + name, "cannot run on this CPU"},
             [isa, name] { return cpu_supports(isa) ? "this CPU runs " + name : std::string(); }});
        rows->push_back({e,
                         "settings.isa_build",
                         name + " left out of the build",
                         [isa](Buffers &) { return of(set_isa(isa)); },
                         ErrorCode::unsupported,
                         {"isa = " + name, "not compiled"},
                         [isa, name] {
                             if (!cpu_supports(isa)) return "this CPU cannot run " + name;
                             return isa_compiled(isa) ? name + " is compiled in this build"
                                                      : std::string();
                         }});
    }
}

}  // namespace

void add_core_rows(std::vector<Row> *rows) {
    add_reduce_rows(rows);
    add_reduce_output_shape_rows(rows);
    add_pool_rows(rows);
    add_pool_shape_rows(rows);
    add_set_isa_rows(rows);
}

}  // namespace lpnorm::test::bad_input
