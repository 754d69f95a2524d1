// Rows of the C ABI (lpnorm_c.h): every pointer argument null, every enum code out of range,
// and the C++ rules as the C ABI reaches them. The runner checks lpnorm_last_error().
#include "bad_input/table.h"
#include "lpnorm/lpnorm_c.h"
#include "test_util.h"

namespace lpnorm::test::bad_input {

namespace {

const ErrorCode kInvalid = ErrorCode::invalid_argument;
const ErrorCode kNull = ErrorCode::null_pointer;
const int64_t kIn[4] = {2, 3, 6, 8};      // kShape
const int64_t kReduced[3] = {2, 3, 6};    // kShape reduced over axis 3
const int64_t kPooled[4] = {2, 3, 3, 4};  // kShape pooled 2x2, stride 2
const int64_t kAxis3[1] = {3};
const int64_t kTwo[2] = {2, 2};

lpnorm_tensor c_tensor(const Tensor &t) {
    return {t.data, int32_t(t.dtype), t.rank, t.shape, t.strides};
}
lpnorm_tensor c_in(Buffers &b) { return {b.in.data(), LPNORM_FLOAT32, 4, kIn, nullptr}; }
lpnorm_tensor c_reduced(Buffers &b) { return {b.out.data(), LPNORM_FLOAT32, 3, kReduced, nullptr}; }
lpnorm_tensor c_pooled(Buffers &b) { return {b.out.data(), LPNORM_FLOAT32, 4, kPooled, nullptr}; }

lpnorm_pool_params c_pool(const PoolParams &p) {
    auto ptr = [](const std::vector<int64_t> &v) { return v.empty() ? nullptr : v.data(); };
    return {int32_t(p.kernel.size()), ptr(p.kernel), ptr(p.strides),
            ptr(p.dilations),         ptr(p.pads),   int32_t(p.auto_pad),
            p.ceil_mode ? 1 : 0,      p.p,           int32_t(p.mode),
            int32_t(p.overhang)};
}
lpnorm_pool_params c_pool2x2() { return {2, kTwo, kTwo, nullptr, nullptr, 0, 0, 2.0, 0, 0}; }

int reduce3(const lpnorm_tensor *in, const lpnorm_tensor *out) {
    return lpnorm_reduce(in, out, kAxis3, 1, 2.0, 0, LPNORM_EMPTY_AXES_REDUCE_ALL);
}

void add_reduce_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm_reduce";
    auto add = [&](std::string site, std::string name, std::function<Outcome(Buffers &)> call,
                   ErrorCode code, std::vector<std::string> fragments) {
        rows->push_back(
            {e, std::move(site), std::move(name), std::move(call), code, std::move(fragments)});
    };
    add("c.tensor_null", "input null",
        [](Buffers &b) {
            auto o = c_reduced(b);
            return of_c(reduce3(nullptr, &o));
        },
        kNull, {"input is null"});
    add("c.tensor_null", "output null",
        [](Buffers &b) {
            auto i = c_in(b);
            return of_c(reduce3(&i, nullptr));
        },
        kNull, {"output is null"});
    for (int rank : {9, -1}) {
        add("c.tensor_rank", "input rank " + std::to_string(rank),
            [rank](Buffers &b) {
                auto i = c_in(b);
                i.rank = rank;
                auto o = c_reduced(b);
                return of_c(reduce3(&i, &o));
            },
            kInvalid, {"input.rank = " + std::to_string(rank), "[0, 8]"});
    }
    add("c.tensor_rank", "output rank -2",
        [](Buffers &b) {
            auto i = c_in(b);
            auto o = c_reduced(b);
            o.rank = -2;
            return of_c(reduce3(&i, &o));
        },
        kInvalid, {"output.rank = -2"});
    for (int dtype : {12, -1}) {
        add("c.tensor_dtype", "input dtype code " + std::to_string(dtype),
            [dtype](Buffers &b) {
                auto i = c_in(b);
                i.dtype = dtype;
                auto o = c_reduced(b);
                return of_c(reduce3(&i, &o));
            },
            kInvalid, {"input.dtype = " + std::to_string(dtype), "lpnorm_dtype"});
    }
    add("c.tensor_dtype", "output dtype code 99",
        [](Buffers &b) {
            auto i = c_in(b);
            auto o = c_reduced(b);
            o.dtype = 99;
            return of_c(reduce3(&i, &o));
        },
        kInvalid, {"output.dtype = 99"});
    for (int memory : {4, -1}) {
        add("c.tensor_memory", "input memory code " + std::to_string(memory),
            [memory](Buffers &b) {
                auto i = c_in(b);
                i.memory = memory;
                auto o = c_reduced(b);
                return of_c(reduce3(&i, &o));
            },
            kInvalid, {"input.memory = " + std::to_string(memory), "lpnorm_memory"});
    }
    add("c.tensor_shape_null", "input shape null",
        [](Buffers &b) {
            auto i = c_in(b);
            i.shape = nullptr;
            auto o = c_reduced(b);
            return of_c(reduce3(&i, &o));
        },
        kNull, {"input.shape is null", "rank 4"});
    add("c.tensor_shape_null", "output shape null",
        [](Buffers &b) {
            auto i = c_in(b);
            auto o = c_reduced(b);
            o.shape = nullptr;
            return of_c(reduce3(&i, &o));
        },
        kNull, {"output.shape is null", "rank 3"});
    add("c.reduce_num_axes", "negative num_axes",
        [](Buffers &b) {
            auto i = c_in(b), o = c_reduced(b);
            return of_c(lpnorm_reduce(&i, &o, kAxis3, -1, 2.0, 0, 1));
        },
        kInvalid, {"num_axes = -1"});
    add("c.reduce_axes_null", "axes null with num_axes 2",
        [](Buffers &b) {
            auto i = c_in(b), o = c_reduced(b);
            return of_c(lpnorm_reduce(&i, &o, nullptr, 2, 2.0, 0, 1));
        },
        kNull, {"axes is null", "num_axes = 2"});
    for (const std::string which : {"input", "output"}) {
        for (const TensorRule &t : tensor_rules(which)) {
            if (!t.c_abi) continue;
            const bool in = which == "input";
            add(
                t.site, which + ": " + t.name,
                [t, in](Buffers &b) {
                    const Tensor bad = t.make(b);
                    const lpnorm_tensor cb = c_tensor(bad), i = c_in(b);
                    const lpnorm_tensor o = {b.out.data(), LPNORM_FLOAT32, 0, nullptr, nullptr};
                    return of_c(lpnorm_reduce(in ? &cb : &i, in ? &o : &cb, nullptr, 0, 2.0, 0, 1));
                },
                t.code, t.fragments);
        }
    }
    for (const ReduceRule &r : reduce_attribute_rules()) {
        add(
            r.site, r.name,
            [r](Buffers &b) {
                const Tensor x = b.x(r.shape);
                const lpnorm_tensor i = c_tensor(x),
                                    o = {b.out.data(), LPNORM_FLOAT32, 0, nullptr, nullptr};
                return of_c(lpnorm_reduce(&i, &o, r.params.axes.data(),
                                          int32_t(r.params.axes.size()), r.params.p,
                                          r.params.keep_dims, int32_t(r.params.empty_axes)));
            },
            kInvalid, r.fragments);
    }
    add("validate.output_dtype", "LPNORM_FLOAT16 output of LPNORM_FLOAT32",
        [](Buffers &b) {
            auto i = c_in(b), o = c_reduced(b);
            o.dtype = LPNORM_FLOAT16;
            return of_c(reduce3(&i, &o));
        },
        ErrorCode::dtype_mismatch, {"output.dtype = float16", "input.dtype = float32"});
    add("validate.output_shape", "keep_dims needs the size-1 dim",
        [](Buffers &b) {
            auto i = c_in(b), o = c_reduced(b);
            return of_c(lpnorm_reduce(&i, &o, kAxis3, 1, 2.0, 1, 1));
        },
        ErrorCode::shape_mismatch, {"output.shape = [2, 3, 6]", "expected [2, 3, 6, 1]"});
    add("validate.output_dense", "output strides",
        [](Buffers &b) {
            static const int64_t strides[3] = {18, 6, 2};
            auto i = c_in(b), o = c_reduced(b);
            o.strides = strides;
            return of_c(reduce3(&i, &o));
        },
        kInvalid, {"output.strides = [18, 6, 2]"});
    add("validate.aliasing", "output inside the input",
        [](Buffers &b) {
            auto i = c_in(b), o = c_reduced(b);
            o.data = b.in.data() + 8;
            return of_c(reduce3(&i, &o));
        },
        ErrorCode::aliasing, {"input", "output", "overlap"});
}

void add_reduce_output_shape_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm_reduce_output_shape";
    auto add = [&](std::string site, std::string name, std::function<Outcome(Buffers &)> call,
                   ErrorCode code, std::vector<std::string> fragments) {
        rows->push_back(
            {e, std::move(site), std::move(name), std::move(call), code, std::move(fragments)});
    };
    for (int rank : {9, -1}) {
        add("c.query_rank", "rank " + std::to_string(rank),
            [rank](Buffers &b) {
                return of_c(
                    lpnorm_reduce_output_shape(rank, kIn, kAxis3, 1, 0, 1, &b.c_rank, b.c_shape));
            },
            kInvalid, {"rank = " + std::to_string(rank), "[0, 8]"});
    }
    const std::string nulls = "shape, out_rank and out_shape must not be null";
    add("c.query_null", "shape null",
        [](Buffers &b) {
            return of_c(
                lpnorm_reduce_output_shape(4, nullptr, kAxis3, 1, 0, 1, &b.c_rank, b.c_shape));
        },
        kNull, {nulls});
    add("c.query_null", "out_rank null",
        [](Buffers &b) {
            return of_c(lpnorm_reduce_output_shape(4, kIn, kAxis3, 1, 0, 1, nullptr, b.c_shape));
        },
        kNull, {nulls});
    add("c.query_null", "out_shape null",
        [](Buffers &b) {
            return of_c(lpnorm_reduce_output_shape(4, kIn, kAxis3, 1, 0, 1, &b.c_rank, nullptr));
        },
        kNull, {nulls});
    add("c.shape_axes_null", "axes null with num_axes 1",
        [](Buffers &b) {
            return of_c(lpnorm_reduce_output_shape(4, kIn, nullptr, 1, 0, 1, &b.c_rank, b.c_shape));
        },
        kNull, {"axes is null", "num_axes = 1"});
    add("c.shape_num_axes", "negative num_axes",
        [](Buffers &b) {
            return of_c(lpnorm_reduce_output_shape(4, kIn, kAxis3, -3, 0, 1, &b.c_rank, b.c_shape));
        },
        kInvalid, {"num_axes = -3"});
    add("reduce.shape_negative", "negative dim",
        [](Buffers &b) {
            static const int64_t shape[3] = {2, -3, 4};
            return of_c(
                lpnorm_reduce_output_shape(3, shape, kAxis3, 0, 0, 1, &b.c_rank, b.c_shape));
        },
        kInvalid, {"input.shape[1] = -3"});
    for (const ReduceRule &r : reduce_attribute_rules()) {
        if (r.site == "validate.p") continue;  // no p argument
        add(
            r.site, r.name,
            [r](Buffers &b) {
                return of_c(lpnorm_reduce_output_shape(
                    int32_t(r.shape.size()), r.shape.data(), r.params.axes.data(),
                    int32_t(r.params.axes.size()), r.params.keep_dims, int32_t(r.params.empty_axes),
                    &b.c_rank, b.c_shape));
            },
            kInvalid, r.fragments);
    }
}

void add_pool_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm_pool";
    auto add = [&](std::string site, std::string name, std::function<Outcome(Buffers &)> call,
                   ErrorCode code, std::vector<std::string> fragments) {
        rows->push_back(
            {e, std::move(site), std::move(name), std::move(call), code, std::move(fragments)});
    };
    auto with_params = [](std::function<void(lpnorm_pool_params &)> edit) {
        return [edit](Buffers &b) {
            auto i = c_in(b), o = c_pooled(b);
            lpnorm_pool_params p = c_pool2x2();
            edit(p);
            return of_c(lpnorm_pool(&i, &o, &p));
        };
    };
    auto with_tensors = [](std::function<void(Buffers &, lpnorm_tensor &, lpnorm_tensor &)> edit) {
        return [edit](Buffers &b) {
            auto i = c_in(b), o = c_pooled(b);
            const lpnorm_pool_params p = c_pool2x2();
            edit(b, i, o);
            return of_c(lpnorm_pool(&i, &o, &p));
        };
    };
    add("c.tensor_null", "input null",
        [](Buffers &b) {
            auto o = c_pooled(b);
            auto p = c_pool2x2();
            return of_c(lpnorm_pool(nullptr, &o, &p));
        },
        kNull, {"input is null"});
    add("c.tensor_null", "output null",
        [](Buffers &b) {
            auto i = c_in(b);
            auto p = c_pool2x2();
            return of_c(lpnorm_pool(&i, nullptr, &p));
        },
        kNull, {"output is null"});
    add("c.params_null", "params null",
        [](Buffers &b) {
            auto i = c_in(b), o = c_pooled(b);
            return of_c(lpnorm_pool(&i, &o, nullptr));
        },
        kNull, {"params is null"});
    for (int dims : {0, 4, -1}) {
        add("c.spatial_dims", "spatial_dims " + std::to_string(dims),
            with_params([dims](lpnorm_pool_params &p) { p.spatial_dims = dims; }), kInvalid,
            {"params.spatial_dims = " + std::to_string(dims)});
    }
    add("c.kernel_null", "kernel null",
        with_params([](lpnorm_pool_params &p) { p.kernel = nullptr; }), kNull,
        {"params.kernel is null"});
    add("c.tensor_rank", "input rank 9",
        with_tensors([](Buffers &, lpnorm_tensor &i, lpnorm_tensor &) { i.rank = 9; }), kInvalid,
        {"input.rank = 9"});
    add("c.tensor_dtype", "output dtype code -1",
        with_tensors([](Buffers &, lpnorm_tensor &, lpnorm_tensor &o) { o.dtype = -1; }), kInvalid,
        {"output.dtype = -1"});
    add("c.tensor_shape_null", "input shape null",
        with_tensors([](Buffers &, lpnorm_tensor &i, lpnorm_tensor &) { i.shape = nullptr; }),
        kNull, {"input.shape is null", "rank 4"});
    add("pool.dtype", "LPNORM_INT16 input",
        with_tensors([](Buffers &, lpnorm_tensor &i, lpnorm_tensor &o) {
            i.dtype = o.dtype = LPNORM_INT16;
        }),
        kInvalid, {"input.dtype = int16"});
    add("validate.output_dtype", "LPNORM_FLOAT64 output of LPNORM_FLOAT32",
        with_tensors(
            [](Buffers &, lpnorm_tensor &, lpnorm_tensor &o) { o.dtype = LPNORM_FLOAT64; }),
        ErrorCode::dtype_mismatch, {"output.dtype = float64", "input.dtype = float32"});
    add("validate.output_shape", "output of the unpooled shape",
        with_tensors([](Buffers &, lpnorm_tensor &, lpnorm_tensor &o) { o.shape = kIn; }),
        ErrorCode::shape_mismatch, {"output.shape = [2, 3, 6, 8]", "expected [2, 3, 3, 4]"});
    add("validate.aliasing", "output on the input",
        with_tensors([](Buffers &b, lpnorm_tensor &, lpnorm_tensor &o) { o.data = b.in.data(); }),
        ErrorCode::aliasing, {"input", "output", "overlap"});
    for (const std::string which : {"input", "output"}) {
        for (const TensorRule &t : tensor_rules(which)) {
            if (!t.c_abi) continue;
            const bool in = which == "input";
            add(
                t.site, which + ": " + t.name,
                [t, in](Buffers &b) {
                    const Tensor bad = t.make(b);
                    const lpnorm_tensor cb = c_tensor(bad), i = c_in(b), o = c_pooled(b);
                    const lpnorm_pool_params p = c_pool2x2();
                    return of_c(lpnorm_pool(in ? &cb : &i, in ? &o : &cb, &p));
                },
                t.code, t.fragments);
        }
    }
    for (const PoolRule &r : pool_attribute_rules()) {
        if (!r.c_abi) continue;
        add(
            r.site, r.name,
            [r](Buffers &b) {
                const Tensor x = b.x(r.shape);
                const lpnorm_tensor i = c_tensor(x), o = c_pooled(b);
                const lpnorm_pool_params p = c_pool(r.params);
                return of_c(lpnorm_pool(&i, &o, &p));
            },
            r.code, r.fragments);
    }
}

void add_pool_output_shape_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm_pool_output_shape";
    auto add = [&](std::string site, std::string name, std::function<Outcome(Buffers &)> call,
                   ErrorCode code, std::vector<std::string> fragments) {
        rows->push_back(
            {e, std::move(site), std::move(name), std::move(call), code, std::move(fragments)});
    };
    auto query = [](int32_t rank, const int64_t *shape, bool null_params, bool null_rank,
                    bool null_shape) {
        return [=](Buffers &b) {
            const lpnorm_pool_params p = c_pool2x2();
            return of_c(lpnorm_pool_output_shape(rank, shape, null_params ? nullptr : &p,
                                                 null_rank ? nullptr : &b.c_rank,
                                                 null_shape ? nullptr : b.c_shape));
        };
    };
    const std::string nulls = "shape, out_rank and out_shape must not be null";
    add("c.query_rank", "rank 9", query(9, kIn, false, false, false), kInvalid,
        {"rank = 9", "[0, 8]"});
    add("c.query_null", "shape null", query(4, nullptr, false, false, false), kNull, {nulls});
    add("c.query_null", "out_rank null", query(4, kIn, false, true, false), kNull, {nulls});
    add("c.query_null", "out_shape null", query(4, kIn, false, false, true), kNull, {nulls});
    add("c.params_null", "params null", query(4, kIn, true, false, false), kNull,
        {"params is null"});
    add("c.spatial_dims", "spatial_dims 5",
        [](Buffers &b) {
            lpnorm_pool_params p = c_pool2x2();
            p.spatial_dims = 5;
            return of_c(lpnorm_pool_output_shape(4, kIn, &p, &b.c_rank, b.c_shape));
        },
        kInvalid, {"params.spatial_dims = 5"});
    add("c.kernel_null", "kernel null",
        [](Buffers &b) {
            lpnorm_pool_params p = c_pool2x2();
            p.kernel = nullptr;
            return of_c(lpnorm_pool_output_shape(4, kIn, &p, &b.c_rank, b.c_shape));
        },
        kNull, {"params.kernel is null"});
    add("geometry.negative", "negative dim",
        [](Buffers &b) {
            static const int64_t shape[4] = {2, 3, 6, -8};
            const lpnorm_pool_params p = c_pool2x2();
            return of_c(lpnorm_pool_output_shape(4, shape, &p, &b.c_rank, b.c_shape));
        },
        kInvalid, {"input.shape[3] = -8"});
    for (const PoolRule &r : pool_attribute_rules()) {
        if (!r.c_abi) continue;
        add(
            r.site, r.name,
            [r](Buffers &b) {
                const lpnorm_pool_params p = c_pool(r.params);
                return of_c(lpnorm_pool_output_shape(int32_t(r.shape.size()), r.shape.data(), &p,
                                                     &b.c_rank, b.c_shape));
            },
            r.code, r.fragments);
    }
}

void add_set_isa_rows(std::vector<Row> *rows) {
    const std::string e = "lpnorm_set_isa";
    for (const char *name : {"avx1024", "AVX2", "", "avx512 "}) {
        const std::string n = name;
        rows->push_back({e,
                         "c.isa_name",
                         "isa \"" + n + "\"",
                         [n](Buffers &) { return of_c(lpnorm_set_isa(n.c_str())); },
                         kInvalid,
                         {"isa = " + n + " is not one of"}});
    }
    rows->push_back({e,
                     "c.isa_name",
                     "isa null",
                     [](Buffers &) { return of_c(lpnorm_set_isa(nullptr)); },
                     kInvalid,
                     {"isa = (null)"}});
    for (Isa isa : all_isas()) {
        const std::string name = isa_name(isa);
        rows->push_back(
            {e,
             "settings.isa_cpu",
             name + " on a CPU without it",
             [name](Buffers &) { return of_c(lpnorm_set_isa(name.c_str())); },
             ErrorCode::unsupported,
             {"isa = " + name, "cannot run on this CPU"},
             [isa, name] { return cpu_supports(isa) ? "this CPU runs " + name : std::string(); }});
    }
}

void add_backend_rows(std::vector<Row> *rows) {
    for (const char *name : {"vulkan", "OpenCL", "", "cuda "}) {
        const std::string n = name;
        rows->push_back({"lpnorm_set_backend",
                         "c.backend_name",
                         "backend \"" + n + "\"",
                         [n](Buffers &) { return of_c(lpnorm_set_backend(n.c_str())); },
                         kInvalid,
                         {"backend = " + n + " is not one of"}});
    }
    rows->push_back({"lpnorm_set_backend",
                     "c.backend_name",
                     "backend null",
                     [](Buffers &) { return of_c(lpnorm_set_backend(nullptr)); },
                     kInvalid,
                     {"backend = (null)"}});
    rows->push_back({"lpnorm_gpu_context",
                     "c.backend_name",
                     "backend \"metal\"",
                     [](Buffers &) {
                         void *context = nullptr, *queue = nullptr;
                         return of_c(lpnorm_gpu_context("metal", &context, &queue));
                     },
                     kInvalid,
                     {"backend = metal is not one of"}});
}

}  // namespace

void add_c_api_rows(std::vector<Row> *rows) {
    add_reduce_rows(rows);
    add_reduce_output_shape_rows(rows);
    add_pool_rows(rows);
    add_pool_output_shape_rows(rows);
    add_set_isa_rows(rows);
    add_backend_rows(rows);
}

}  // namespace lpnorm::test::bad_input
