// oneDNN baseline: the `reduction` primitive with algorithm::reduction_norm_lp_sum
// (y = (sum |x|^p)^(1/p), eps = 0). The destination keeps the source rank with 1s on the
// reduced axes, which is the same memory as our keep_dims = false output.
//
// Threads: oneDNN from Debian uses OpenMP; the binary sets omp_set_num_threads at start-up.
#include <oneapi/dnnl/dnnl.hpp>

#include <string>

#include "bench_common.h"

namespace lpnorm_bench {
namespace {

using dnnl::memory;

// One oneDNN primitive with its source and destination, run on a CPU stream.
class OneDnnRunner : public Runner {
public:
    void run() override {
        primitive_.execute(stream_, {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}});
        stream_.wait();
    }

    const char *label() const override { return impl_.c_str(); }

protected:
    OneDnnRunner() : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

    std::string impl_;
    dnnl::engine engine_;
    dnnl::stream stream_;
    dnnl::primitive primitive_;
    memory src_, dst_;
};

class OneDnn final : public OneDnnRunner {
public:
    OneDnn(const Problem &pb) {
        memory::dims src_dims(pb.shape, pb.shape + pb.rank), dst_dims = src_dims;
        for (int i = 0; i < pb.num_axes; ++i) dst_dims[pb.axes[i]] = 1;
        memory::data_type type =
            pb.elem == Elem::f32 ? memory::data_type::f32 : memory::data_type::f16;
        memory::format_tag tag = pb.rank == 4   ? memory::format_tag::abcd
                                 : pb.rank == 2 ? memory::format_tag::ab
                                                : memory::format_tag::a;
        memory::desc src_md(src_dims, type, tag), dst_md(dst_dims, type, tag);
        auto alg = dnnl::algorithm::reduction_norm_lp_sum;
#if DNNL_VERSION_MAJOR >= 3
        dnnl::reduction::primitive_desc pd(engine_, alg, src_md, dst_md, float(pb.p), 0.0f);
#else
        dnnl::reduction::primitive_desc pd({alg, src_md, dst_md, float(pb.p), 0.0f}, engine_);
#endif
        impl_ = pd.impl_info_str();
        primitive_ = dnnl::reduction(pd);
        src_ = memory(src_md, engine_, const_cast<void *>(pb.input));
        dst_ = memory(dst_md, engine_, pb.output);
    }
};

}  // namespace

Runner *make_onednn(const Problem &problem, const char **why) {
    if (problem.rank != 1 && problem.rank != 2 && problem.rank != 4) {
        *why = "oneDNN baseline: only ranks 1, 2 and 4 are wired up";
        return nullptr;
    }
    try {
        return new OneDnn(problem);
    } catch (const dnnl::error &) {
        *why = problem.elem == Elem::f16 ? "oneDNN has no CPU reduction for this f16 problem"
                                         : "oneDNN has no CPU reduction for this problem";
        return nullptr;
    }
}

}  // namespace lpnorm_bench

// ---- Average pooling: what an Lp pool costs when the powers are already taken --------------

namespace lpnorm_bench {
namespace {

class OneDnnAvgPool final : public OneDnnRunner {
public:
    OneDnnAvgPool(const PoolProblem &pb, int channel_block) {
        const bool blocked = channel_block > 0;
        const int spatial = pb.rank - 2;
        memory::dims src_dims(pb.shape, pb.shape + pb.rank);
        memory::dims dst_dims(pb.out_shape, pb.out_shape + pb.rank);
        memory::dims kernel(pb.kernel, pb.kernel + spatial),
            strides(pb.strides, pb.strides + spatial);
        memory::dims pad_l(pb.pad_begin, pb.pad_begin + spatial),
            pad_r(pb.pad_end, pb.pad_end + spatial);
        const memory::data_type type =
            pb.elem == Elem::f32 ? memory::data_type::f32 : memory::data_type::f16;
        const memory::format_tag plain = memory::format_tag::abcd;
        const memory::format_tag tag = !blocked              ? plain
                                       : channel_block == 16 ? memory::format_tag::aBcd16b
                                                             : memory::format_tag::aBcd8b;
        memory::desc src_md(src_dims, type, tag), dst_md(dst_dims, type, tag);
        const auto alg = dnnl::algorithm::pooling_avg_include_padding;
        const auto prop = dnnl::prop_kind::forward_inference;
#if DNNL_VERSION_MAJOR >= 3
        memory::dims dilation(spatial, 0);
        dnnl::pooling_forward::primitive_desc pd(engine_, prop, alg, src_md, dst_md, strides,
                                                 kernel, dilation, pad_l, pad_r);
#else
        dnnl::pooling_forward::primitive_desc pd(
            {prop, alg, src_md, dst_md, strides, kernel, pad_l, pad_r}, engine_);
#endif
        impl_ = pd.impl_info_str();
        primitive_ = dnnl::pooling_forward(pd);
        memory user_src(memory::desc(src_dims, type, plain), engine_, const_cast<void *>(pb.input));
        if (blocked) {
            src_ = memory(src_md, engine_);
            dst_ = memory(dst_md, engine_);
            dnnl::reorder(user_src, src_).execute(stream_, user_src, src_);
            stream_.wait();
        } else {
            src_ = user_src;
            dst_ = memory(dst_md, engine_, pb.output);
        }
    }
};

}  // namespace

Runner *make_onednn_avg_pool(const PoolProblem &problem, int channel_block, const char **why) {
    if (problem.rank != 4) {
        *why = "oneDNN average pooling baseline: 2-D windows only";
        return nullptr;
    }
    try {
        return new OneDnnAvgPool(problem, channel_block);
    } catch (const dnnl::error &) {
        *why = "oneDNN has no CPU average pooling for this problem";
        return nullptr;
    }
}

}  // namespace lpnorm_bench
