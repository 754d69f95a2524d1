// CPU schedule of the 2-D pooling kernels built with direct_window
// (generators/kernel_abi.h, pool_direct_window()): each vector of outputs sums its windows
// straight from the input, |x|^p at every tap, in a register, then takes the root and is
// stored. Nothing else is stored: no row of terms, no partial sums.
//
// A copy of the loops per stride along the rows and p kind (its power at each tap, its root),
// and inside it per kernel size, the taps unrolled. The row is read with no condition (the
// windows are inside it); taps outside the input along the outer dim are skipped by two
// comparisons per tap and row.
//
// Rows of half a vector and more take whole vectors, the last one shifted inwards, so that
// no vector is guarded. Measured on the Xeon AVX-512 host (float32 p = 2, 2 threads, medians
// of 51-101 calls of lpnorm::pool with the kernel forced, runs alternating), from the kernel
// before (rows of fewer than 16 outputs guarded, gathers for the windows of the shifted last
// vector, the outer taps' bounds by two divisions per tap in the loop along the row), each
// change measured alone: [8,256,28,28] 2x2 s2 0.74-0.84 ms; half vectors, 0.76-0.84 ms (the
// shifted vector still read gathers); the row read with no condition, 0.55-0.70 ms (`perf
// annotate`: the divisions' integer code took most samples); comparisons, 0.25-0.29 ms.
// [32,64,112,112] 2x2 s2 7.7-8.0 -> 4.7-5.3 ms, [8,64,56,56] 0.51-0.61 -> 0.18-0.19 ms,
// [8,128,16,16] 0.23 -> 0.050-0.056 ms.
//
// Why: the row kernel's stages store and reload rows (the term, the vertical sums), and
// `perf annotate` put 63% of its 2x2 s2 samples on the vertical sum's loads (Zen 4); a loop
// written by hand that sums two rows in registers was 1.4x faster. Against the row kernel,
// lpnorm_bench, float32, 2 threads, AVX2 (Zen 3 class, 32 MiB L3), medians of 3, three
// alternating runs: [32,64,112,112] 2x2 s2 p = 1 8.1-10.4 -> 6.0-7.3 ms, p = 2 8.2-10.5 ->
// 6.4-7.9 ms, p = 3 12.9-15.0 -> 10.7-11.6 ms, p = 4 9.1-10.9 -> 7.0-8.5 ms. Built for 2x2 s2
// alone (the cut along the row then exact; kernel_abi.h says why the other windows went back to
// the row kernels), measured the same way: p = 1 6.6-7.2 -> 5.1-5.7 ms, p = 2 6.9-7.3 -> 5.2-5.8,
// p = 3 10.0-11.9 -> 6.8-9.1, p = 4 7.2-7.8 -> 4.8-6.4.
#include <algorithm>
#include <utility>
#include <vector>

#include "cpu_pool_schedule.h"
#include "kernel_abi.h"

namespace lpnorm::sched {

using namespace Halide;

void schedule_pool_cpu_direct(gen::PoolDirectStages s, const PoolBuffers &b, const Target &target,
                              const PoolKnobs &knobs) {
    const int spatial = static_cast<int>(s.vars.size()) - 2;
    if (spatial != 2) {
        throw CompileError("schedule_pool_cpu_direct: 2-D kernels only");
    }
    const int lanes = pool_lanes(s.compute_type, target, knobs);
    Var s0 = s.vars[0], xo("xo"), xi("xi");
    Func out = s.out;
    // A task per channel plane (the runtime calls these kernels on at least
    // kDirectMinPlanes planes). Not the row kernels' groups of planes or strips of rows: with
    // their guarded splits, bounds inference no longer sees one (c, n) per vector of `out`, and
    // the sum's buffer takes a size known only at run time, never promoted to a register.
    Var plane("plane");
    out.fuse(s.vars[spatial], s.vars[spatial + 1], plane).parallel(plane);
    // Rows of at least a vector, or of half a vector: every vector full (the last one shifted
    // inwards), so that the sum is a vector of constant size, kept in a register. Shorter rows
    // (which the runtime leaves to the row kernels: kDirectMinRow): one half vector, guarded.
    auto vectors_and_kinds = [&](Stage copy, int width, TailStrategy tail) {
        copy.split(s0, xo, xi, width, tail).vectorize(xi);
        for (int stride : abi::kDirectStrides0) {
            Stage strided = copy.specialize(s.window.stride[0] == stride);
            for (const Expr &kind : s.kind_conditions) {
                strided.specialize(kind);
            }
            strided.specialize_fail("lpnorm: direct_window pooling kernels take p = 1 to 4 only");
        }
        copy.specialize_fail("lpnorm: a stride along the rows the direct_window kernels lack");
    };
    const int half = std::max(1, lanes / 2);
    const Expr full_vectors = b.output_extent[0] >= lanes;
    const Expr half_vectors = b.output_extent[0] >= half;
    vectors_and_kinds(out.specialize(full_vectors), lanes, TailStrategy::ShiftInwards);
    vectors_and_kinds(out.specialize(half_vectors), half, TailStrategy::ShiftInwards);
    vectors_and_kinds(out, half, TailStrategy::GuardWithIf);

    // The window sums of a vector of `out`, in one register.
    s.sum.compute_at(out, xo);
    auto sum_vectors = [&](Stage sum, Stage taps, int width, TailStrategy tail) {
        sum.vectorize(s0, width, tail);
        for (int k : abi::kDirectKernels) {
            for (int stride : abi::kDirectStrides0) {
                Expr window = s.window.stride[0] == stride;
                for (int d = 0; d < spatial; d++) {
                    window = window && s.window.kernel[d] == k;
                }
                Stage copy = taps.specialize(window).vectorize(s0, width, tail);
                for (int d = 0; d < spatial; d++) {
                    copy.unroll(s.taps[d]);
                }
            }
        }
        taps.specialize_fail("lpnorm: a window the direct_window kernels lack");
    };
    const std::vector<std::pair<Expr, int>> widths = {{full_vectors, lanes}, {half_vectors, half}};
    for (const auto &[rows, width] : widths) {
        sum_vectors(s.sum.specialize(rows), s.sum.update().specialize(rows), width,
                    TailStrategy::RoundUp);
    }
    sum_vectors(s.sum, s.sum.update(), half, TailStrategy::GuardWithIf);
}

}  // namespace lpnorm::sched
