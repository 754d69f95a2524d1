// Eigen baseline: Tensor expressions as a user would write them, evaluated on a
// ThreadPoolDevice with the requested number of threads. float16 is cast to float first, so
// it accumulates in float like lpnorm does.
//
//   p = 1: x.abs().sum(dims)   p = 2: x.square().sum(dims).sqrt()   else:
//   x.abs().pow(p).sum(dims).pow(1/p)
//
// p = 3 uses .cube() instead of .pow(3), the way a user would write an integer power.
#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include <type_traits>

#include "bench_common.h"

namespace lpnorm_bench {
namespace {

template <int Rank, int NumAxes, typename T>
class EigenReduce final : public Runner {
    using In = Eigen::TensorMap<Eigen::Tensor<const T, Rank, Eigen::RowMajor>>;
    using Out = Eigen::TensorMap<Eigen::Tensor<T, Rank - NumAxes, Eigen::RowMajor>>;

public:
    explicit EigenReduce(const Problem &pb)
        : pool_(pb.threads),
          device_(&pool_, pb.threads),
          in_(static_cast<const T *>(pb.input), dims_of_input(pb)),
          out_(static_cast<T *>(pb.output), dims_of_output(pb)),
          p_(static_cast<float>(pb.p)) {
        for (int i = 0; i < NumAxes; ++i) axes_[i] = pb.axes[i];
    }

    void run() override {
        if constexpr (std::is_same_v<T, float>)
            evaluate(in_);
        else
            evaluate(in_.template cast<float>());
    }

private:
    static Eigen::array<Eigen::Index, Rank> dims_of_input(const Problem &pb) {
        Eigen::array<Eigen::Index, Rank> d{};
        for (int i = 0; i < Rank; ++i) d[i] = pb.shape[i];
        return d;
    }
    static Eigen::array<Eigen::Index, Rank - NumAxes> dims_of_output(const Problem &pb) {
        Eigen::array<Eigen::Index, Rank - NumAxes> d{};
        for (int i = 0, k = 0; i < Rank; ++i)
            if (!pb.reduced(i)) d[k++] = pb.shape[i];
        return d;
    }

    template <typename X>
    void evaluate(const X &x) {
        if (p_ == 1.0f)
            store(x.abs().sum(axes_));
        else if (p_ == 2.0f)
            store(x.square().sum(axes_).sqrt());
        else if (p_ == 3.0f)
            store(x.abs().cube().sum(axes_).pow(1.0f / 3.0f));
        else
            store(x.abs().pow(p_).sum(axes_).pow(1.0f / p_));
    }

    template <typename Y>
    void store(const Y &y) {
        if constexpr (std::is_same_v<T, float>)
            out_.device(device_) = y;
        else
            out_.device(device_) = y.template cast<T>();
    }

    Eigen::ThreadPool pool_;
    Eigen::ThreadPoolDevice device_;
    In in_;
    Out out_;
    Eigen::array<Eigen::Index, NumAxes> axes_;
    float p_;
};

template <int Rank, int NumAxes>
Runner *make(const Problem &pb) {
    if (pb.elem == Elem::f32) return new EigenReduce<Rank, NumAxes, float>(pb);
    return new EigenReduce<Rank, NumAxes, Eigen::half>(pb);
}

}  // namespace

Runner *make_eigen(const Problem &pb, const char **why) {
    // Eigen's ranks are template arguments: only the benchmarked combinations are compiled.
    if (pb.rank == 4 && pb.num_axes == 1) return make<4, 1>(pb);
    if (pb.rank == 4 && pb.num_axes == 2) return make<4, 2>(pb);
    if (pb.rank == 4 && pb.num_axes == 4) return make<4, 4>(pb);
    if (pb.rank == 2 && pb.num_axes == 1) return make<2, 1>(pb);
    *why = "Eigen baseline: this (rank, number of axes) combination is not compiled";
    return nullptr;
}

}  // namespace lpnorm_bench
