// CPU schedules of the reduction patterns.
//
// Every pattern is memory-bound, so each schedule aims at one streaming pass over the input
// with vector loads, enough independent accumulators to hide the add latency, and both cores
// busy on large inputs only (a thread-pool wake-up costs more than a small reduction).
#include "cpu_reduce_schedule.h"

#include <algorithm>

#include "cpu_target.h"

namespace lpnorm::sched {
namespace {

using namespace Halide;
using gen::ReduceStages;

// Gives each p_kind its own copy of `stage` so that no branch evaluates another kind's term
// (the general-p kind calls pow; L1 must not pay for it). Returns the specialised stages.
// Only for stages whose values depend on the kind: a Func computed inside each copy of another
// is lowered once per copy, so kinds within kinds multiply the compiler's work (see
// schedule_float32_blocks).
std::vector<Stage> specialize_kinds(Stage stage, const ReduceStages &s) {
    std::vector<Stage> kinds;
    for (const Expr &condition : s.kind_conditions) {
        kinds.push_back(stage.specialize(condition));
    }
    stage.specialize_fail("lpnorm: unknown p_kind");
    return kinds;
}

// Vector width in elements of the input type.
//
// On ARM64 it is also capped so that the accumulator vectors of all streams fill at most half
// of the 32 registers, leaving the rest for loads and widened terms: float32 into float64
// keeps its 8 lanes (4 streams x 4 registers), but int8 into float64 would take 32 lanes,
// 64 registers, and spill inside the loop, so it gets 8 lanes too. (The x86 widths are the
// measured ones and are left alone; emulated ARM timings measure nothing, so the ARM cap
// comes from this count.)
int vector_width(const ReduceStages &s, const Target &target, const ReduceKnobs &knobs) {
    const int lanes = target.natural_vector_size(s.input_type) * std::max(1, knobs.vector_multiple);
    if (!is_arm64(target)) {
        return lanes;
    }
    const int acc_budget_bytes = vector_registers(target) / 2 * vector_bytes(target);
    int cap = acc_budget_bytes / (std::max(1, knobs.streams) * s.accum_type.bytes());
    // A power of two, and at least one whole vector of accumulators.
    int pow2 = 1;
    while (pow2 * 2 <= cap) {
        pow2 *= 2;
    }
    cap = std::max(pow2, vector_bytes(target) / s.accum_type.bytes());
    return std::min(lanes, cap);
}

// Splits `range` (an RVar of a sum over a contiguous run) into `streams` interleaved streams
// of vectors and returns the intermediate lanes(lane, stream, ...) that accumulates them,
// walking the streams side by side. One stream per core reached 64-70% of the streaming-read
// probe on [32, 256, 56, 56] (a single hardware prefetch stream at a time); four streams read
// side by side reached it (standalone AVX-512 loop, 1 thread: 8.97 vs 6.07 GB/s, probe 8.88).
Func interleave_streams(Stage stage, RVar range, Expr stream_size, int streams, int lanes_n,
                        const ReduceStages &s) {
    RVar stream_r("stream_r"), in_stream("in_stream"), vec_r("vec_r"), lane_r("lane_r");
    Var stream("stream"), lane("lane");
    Func lanes = stage.split(range, stream_r, in_stream, stream_size, TailStrategy::GuardWithIf)
                     .split(in_stream, vec_r, lane_r, lanes_n, TailStrategy::GuardWithIf)
                     .rfactor({{stream_r, stream}, {lane_r, lane}});
    // At most `streams` streams are read; a constant extent lets the stream loop unroll.
    lanes.bound(stream, 0, streams).reorder_storage(lane, stream).vectorize(lane);
    for (Stage kind : specialize_kinds(lanes.update(), s)) {
        kind.reorder(lane, stream, vec_r).unroll(stream).vectorize(lane);
    }
    return lanes;
}

// Adds the streams lane by lane (vector adds) into a row of lane sums computed at `at_var`,
// leaving `merge` to add the lanes (see add_lanes_as_tree).
void sum_streams(Stage merge, Func at, Var at_var) {
    Var lane("lane_sum");
    Func lane_sums = merge.rfactor(RVar("lane_r"), lane);
    lane_sums.compute_at(at, at_var).vectorize(lane);
    lane_sums.update().vectorize(lane);
}

// Adds the lanes with a vector tree, not a serial chain of dependent adds. The merge keeps
// the split's guard (lanes past the end of a short run), so the tree is only vectorised in a
// branch whose condition proves the guard true; a merge the guard kept scalar cost 1.3k
// cycles per row.
void add_lanes_as_tree(Stage merge) { merge.atomic().vectorize(RVar("lane_r")); }

// Cuts the `all` update `update` into tasks, each task into `streams` interleaved streams of
// vector lanes, and adds the partial sums at the end. Streams hold ceil(n / tasks / streams)
// elements rounded up to a whole vector, so the tasks overshoot n by at most a few vectors
// each, whatever n is (a fixed task size left the last task running a full task of masked
// no-op iterations: 895 us instead of 0.3 us for n = 2 on AVX2). The tasks of the `parallel`
// copy run on the thread pool; the serial copy's names get a suffix to keep them apart.
void stream_all(Stage update, const ReduceStages &s, Expr n, Expr num_tasks, int streams,
                int lanes_n, bool parallel) {
    const std::string tag = parallel ? "" : "_serial";
    // Written with divisions only: the simplifier may fold sums of products into forms that
    // overflow 32 bits (n * 65537) for large n.
    Expr task_size = (max(n, 1) - 1) / num_tasks + 1;
    Expr stream_size = ((task_size - 1) / (lanes_n * streams) + 1) * lanes_n;
    RVar task_r("task_r" + tag), in_task("in_task" + tag);
    Var task("task" + tag);
    Func tasks =
        update.split(s.r.x, task_r, in_task, stream_size * streams, TailStrategy::GuardWithIf)
            .rfactor(task_r, task);
    Func lanes = interleave_streams(tasks.update(), in_task, stream_size, streams, lanes_n, s);
    lanes.compute_at(tasks, task);
    sum_streams(tasks.update(), tasks, task);
    tasks.compute_root();
    if (parallel) {
        tasks.update().parallel(task);
    }
    add_lanes_as_tree(tasks.update().specialize(n >= lanes_n));
}

// (r) -> (): streamed (stream_all) in two copies. Large inputs run tasks of task_elements on
// the thread pool with `streams` streams each; below parallel_min_elements one task runs on
// the calling thread with `serial_streams`. More streams keep more reads in flight, but each
// costs a guard per vector and its share of the merge, which a short input does not earn
// back. float32, AVX-512, 2 threads (tools/autotune harness, 2026-11-22): with one copy for
// both, n = 25690112 took 2.7 ms at 4 streams and 2.3 at 12 (probe 2.04), while n = 4096 went
// from 0.54 us to 0.66; with two copies, 4096 took 0.52 us at 4 serial streams and 0.32 at 1.
void schedule_all(ReduceStages s, const ReduceBuffers &b, const Target &target,
                  const ReduceKnobs &knobs) {
    Expr n = b.input_extent[0];
    stream_all(s.acc.update().specialize(n >= knobs.parallel_min_elements), s, n,
               n / knobs.task_elements + 1, std::max(1, knobs.streams),
               vector_width(s, target, knobs), /*parallel=*/true);
    // The serial copy is the same schedule with serial_streams in place of streams (which
    // also caps the ARM64 vector width).
    ReduceKnobs serial = knobs;
    serial.streams = knobs.serial_streams;
    stream_all(s.acc.update(), s, n, 1, std::max(1, serial.streams),
               vector_width(s, target, serial), /*parallel=*/false);
    specialize_kinds(s.out, s);
}

// Lane sums f(lane, k) of a group of `streams` rows, computed at `at` of `out`: on the stack,
// vectors of lanes, lanes innermost in memory too (rfactor puts the row index first).
void per_row_group(Func f, const Func &out, Var at, Var lane, Var k, int streams) {
    f.compute_at(out, at)
        .bound_storage(k, streams)
        .store_in(MemoryType::Stack)
        .reorder_storage(lane, k)
        .vectorize(lane);
}

// The float32 blocks of a row reduction (add_float32_blocks), read as the float64 path reads
// its rows: per group of `streams` rows, a block's partial sums are one float32 vector per row,
// the rows' vectors read side by side; then each is converted and added to float64 lane sums of
// the row, folded to 8 lanes by vector adds, which the group's vector reduction adds at the end
// of its rows. (With 16 lanes, reduced one by one, [6, 12, 10, 24] axes {2, 3} took 20% longer:
// AVX-512, one thread; folded to 4, 4% longer.)
void schedule_float32_blocks(ReduceStages s, Var k, Var kgi, int streams, const Expr &sequential) {
    const Var j = s.block.args()[0], b = s.block.args()[1];
    const int folded_lanes = std::min(8, s.block_lanes);
    RVar lanes_o("block_lanes_o"), lanes_i("block_lanes_i");
    Var lane("block_lane");
    Func lane_sums =
        s.acc.update(1).split(s.blocks.x, lanes_o, lanes_i, folded_lanes).rfactor(lanes_i, lane);
    per_row_group(lane_sums, s.out, kgi, lane, k, streams);
    // The fold adds blocks whatever p is, so it has no copy per p_kind: with one, each of its
    // copies held the block's three updates times every kind, and the Halide compiler spent
    // 126-168 s on the float32 kernel (most of it uniquifying the copies' variable names);
    // without, 16 s, and the same object code (simplification pruned the inner copies).
    Stage folds = lane_sums.update();
    // A group of one row where rows are read one at a time: nothing to unroll.
    folds.specialize(sequential)
        .reorder(lane, lanes_o, k, s.blocks.y)
        .vectorize(lane)
        .unroll(lanes_o);
    folds.reorder(lane, lanes_o, k, s.blocks.y)
        .vectorize(lane)
        .unroll(lanes_o)
        .unroll(k, streams, TailStrategy::GuardWithIf);
    // The group's rows at once: one vector of all their lane sums, added pairwise across lanes
    // by shuffles into a vector of the rows' sums. Reduced row by row, the lanes were a serial
    // chain of scalar adds through the stack (see schedule_inner for the measurement).
    s.acc.update(1).atomic().vectorize(lanes_i).vectorize(k, streams, TailStrategy::GuardWithIf);
    s.block.compute_at(lane_sums, s.blocks.y)
        .bound_storage(k, streams)
        .store_in(MemoryType::Stack)
        .vectorize(j);
    // The whole blocks (update 0) and a row's last, partial one (updates 1 and 2). With one
    // update masking every block, AVX2 spent 12 of every 44 instructions of the loop over 8
    // rows building the mask; split, the whole blocks are a load and an FMA per vector. Zen 3
    // (AVX2), [6, 12, 10, 24] axes {2, 3} float32 p = 2: one thread 2.63 -> 1.77 us (a program
    // calling lpnorm::reduce, fastest of 11 alternating runs), two threads (lpnorm_bench) 1.94 ->
    // 1.36 us; the rows of [32, 256, 56, 56] and [8192, 8192] at the same share of the probe.
    for (size_t u = 0; u < s.block_terms.size(); u++) {
        const RVar terms = s.block_terms[u].x;
        for (Stage kind : specialize_kinds(s.block.update(int(u)), s)) {
            kind.specialize(sequential).reorder(j, k, b, terms).vectorize(j);
            kind.reorder(j, k, b, terms).vectorize(j).unroll(k, streams, TailStrategy::GuardWithIf);
        }
    }
}

// (r, k) -> (k): each row is a contiguous run; rows are read `streams` at a time, side by
// side, with vector lanes per row; a vector tree adds each row's lanes; groups of rows are
// split into tasks. Streams inside a row instead (as in `all`) gave only 74% of the probe on
// rows of 3136 floats: 3 KiB streams are too short for the hardware prefetcher.
//
// A group is exactly `streams` rows whenever there are that many (the last group is shifted
// inwards; outputs are pure, so a few are written twice), so the group's lane accumulators
// have a constant size: they live on the stack, the row loop unrolls completely and LLVM
// keeps them in registers. With groups guarded at the end instead, the accumulators were a
// heap allocation per group, read and written back for every input vector: float16
// [32, 256, 56, 56] axes {2, 3} reached 62% of the probe (now 89%), and malloc and free took
// a fifth of the [6, 12, 10, 24] axes {2, 3} time (3.8 us, now 2.9; lpnorm_bench, AVX-512).
//
// Rows of at least `sequential_row_elements` (a knob, reduce_knobs.def) are instead read one
// after another, in memory order, each a group of its own: one prefetch stream per task, which
// some hosts read faster than `streams` rows side by side and others slower.
void schedule_inner(ReduceStages s, const ReduceBuffers &b, const Target &target,
                    const ReduceKnobs &knobs) {
    const int lanes_n = vector_width(s, target, knobs);
    const int streams = std::max(1, knobs.streams);
    Var k = s.vars[0];
    Expr row = b.input_extent[0];
    Expr rows = b.output_extent[0];
    Expr large = cast<int64_t>(row) * rows >= knobs.parallel_min_elements;
    RVar vec_r("vec_r"), lane_r("lane_r");
    Var lane("lane"), kg("kg"), ks("ks"), task("task"), kgi("kgi");

    Func lanes = s.acc.update()
                     .split(s.r.x, vec_r, lane_r, lanes_n, TailStrategy::GuardWithIf)
                     .rfactor(lane_r, lane);
    // Whole groups of rows per task: task_elements' worth, but few enough groups that there
    // are min_tasks tasks where the groups allow it. Without that bound an input just above
    // the thread threshold made one task, and the parallel loop ran it on the calling thread.
    // Below the thread threshold, every group in one task: a parallel loop of one task runs
    // on the calling thread (pool_do_par_for), in the task's own code. With the loops inlined
    // into the pipeline instead, [6, 12, 10, 24] axes {2, 3} float32 took 1.44-1.45 us against
    // 0.90-0.94 us for the task on one thread (lpnorm_bench --threads=1, p = 1 and 2, Xeon,
    // AVX-512, the threshold at 32768 and at 8192).
    auto groups_per_task = [&](int group_rows) {
        Expr groups = (rows + group_rows - 1) / group_rows;
        return select(large,
                      max(1, min(knobs.task_elements / max(row, 1) / group_rows,
                                 (groups + knobs.min_tasks - 1) / knobs.min_tasks)),
                      max(1, groups));
    };
    // With float32 partial sums, a group's roots, checks and conversions as one vector: scalar
    // per row, they held 15% of the samples of the [6, 12, 10, 24] axes {2, 3} kernel (one
    // thread); as vectors, the call took 3% less. float16's took 3-4% more: rows one by one.
    const bool float32_blocks = s.block.defined();
    // Long rows one at a time where the knob says so (reduce_knobs.def): groups of one row.
    const Expr sequential = row >= knobs.sequential_row_elements;
    auto split_rows = [&](Stage kind) {
        Stage one_by_one = kind.specialize(sequential);
        one_by_one.split(k, kg, ks, 1)
            .split(kg, task, kgi, groups_per_task(1), TailStrategy::GuardWithIf);
        one_by_one.parallel(task);
        Stage whole = kind.specialize(rows >= streams);
        whole.split(k, kg, ks, streams, TailStrategy::ShiftInwards)
            .split(kg, task, kgi, groups_per_task(streams), TailStrategy::GuardWithIf);
        if (float32_blocks) whole.vectorize(ks);
        whole.parallel(task);
        // Fewer rows than streams: one short group.
        kind.split(k, kg, ks, streams, TailStrategy::GuardWithIf).split(kg, task, kgi, 1);
    };
    for (Stage kind : specialize_kinds(s.out, s)) {
        // Rows in float32 blocks and rows in float64 get code of their own, so that neither
        // sets up the other's sums: with one copy, every group of rows zeroed 2 KiB of float64
        // lanes (a memset call) and folded empty blocks. With that and the rows' lane sums added
        // as one vector (schedule_float32_blocks), the [6, 12, 10, 24] axes {2, 3} kernel went
        // from 1.16 to 0.83 us on one thread and from 0.89 to 0.67 us on two, and the float64
        // rows of [6, 12, 10, 1] from 0.61 to 0.53 us (tools/autotune harness, avx512_zen5,
        // Zen 5, medians of 11 interleaved rounds; AVX2: 1.95 to 1.59 and 1.33 to 1.22 us);
        // rows of 3136 and 8192 unchanged (-0.4% and -1.7%).
        if (float32_blocks) split_rows(kind.specialize(s.in_blocks));
        split_rows(kind);
    }
    per_row_group(lanes, s.out, kgi, lane, k, streams);
    for (Stage kind : specialize_kinds(lanes.update(), s)) {
        kind.specialize(sequential).reorder(lane, k, vec_r).vectorize(lane);
        kind.reorder(lane, k, vec_r).vectorize(lane).unroll(k, streams, TailStrategy::GuardWithIf);
    }
    s.acc.compute_at(s.out, float32_blocks ? kgi : ks);
    add_lanes_as_tree(s.acc.update().specialize(row >= lanes_n));
    if (float32_blocks) {
        schedule_float32_blocks(s, k, kgi, streams, sequential);
    }
}

// (k0, r[, k1]) -> (k0[, k1]): each parallel task streams a contiguous block of rows
// (k0 contiguous, r the row index) into a float64 accumulator row that stays in cache, so
// the input is read in one sequential pass per task. When the kept dims alone give too few
// tasks, the rows are also cut into chunks whose partial sums are added at the end (an
// rfactor). The first version instead walked L1-sized column tiles down all rows: one short
// run per row at a 32 KiB stride, 51-55% of the streaming-read probe on [8192, 8192] axis 0.
void schedule_strided(ReduceStages s, const ReduceBuffers &b, const Target &target,
                      const ReduceKnobs &knobs) {
    constexpr int kMaxChunkRows = 16384;
    const int lanes_n = vector_width(s, target, knobs);
    const bool has_k1 = s.vars.size() > 1;
    Var k0 = s.vars[0];
    Expr kept = b.output_extent[0];
    Expr rows = b.input_extent[1];
    Expr outer = has_k1 ? b.input_extent[2] : Expr(1);
    Expr total = cast<int64_t>(kept) * rows * outer;
    Expr parallel = total >= knobs.parallel_min_elements;
    // Enough tasks for a many-core machine, but never chunks of less than one row; and chunks
    // of at most kMaxChunkRows rows, so that no accumulator adds more terms than that before
    // its chunk's partial row joins the others: the rounding error of a long sum then grows
    // with the chunk's length plus the number of chunks, not with the rows. float64
    // [8, 2^19, 8] axis 1 (random |x| in [0.5, 2]): 2.7e-14 relative with one accumulator per
    // output down 2^18 rows, above the 1e-14 of docs/semantics.md; 2.1e-15 with chunks of
    // 16384 rows, 8.6e-16 with 4096. Chunks of 4096 rows made [8, 2^19, 8] float64 and
    // [64, 2^16, 16] float32 axis 1 6-20% slower (1024 tasks of 256 KB, 2 threads, AVX-512);
    // with 16384 every shape tried ran within 2% of one chain per task.
    Expr chunks = max(select(parallel, clamp(knobs.min_tasks / max(outer, 1), 1, rows), 1),
                      (rows + kMaxChunkRows - 1) / kMaxChunkRows);
    Expr chunk_rows = (rows - 1) / chunks + 1;
    RVar chunk_r("chunk_r"), row_r("row_r"), row_group("row_group"), row_in_group("row_in_group");
    Var chunk("chunk"), task("task"), kv("kv"), kt("kt");

    Func partial = s.acc.update()
                       .split(s.r.x, chunk_r, row_r, chunk_rows, TailStrategy::GuardWithIf)
                       .rfactor(chunk_r, chunk);
    partial.compute_root();
    partial.specialize(kept >= lanes_n).vectorize(k0, lanes_n, TailStrategy::GuardWithIf);
    for (Stage kind : specialize_kinds(partial.update(), s)) {
        if (has_k1) {
            kind.reorder(k0, row_r, s.vars[1], chunk).fuse(s.vars[1], chunk, task);
        } else {
            kind.reorder(k0, row_r, chunk).rename(chunk, task);
        }
        // Specialisations are alternatives (the first true one wins), so the parallel split
        // is applied inside the vector branch as well as to the scalar one.
        Stage vector = kind.specialize(kept >= lanes_n);
        vector.vectorize(k0, lanes_n, TailStrategy::GuardWithIf);
        // Several rows per pass over the accumulator row (knob rows_per_pass, 4 by hand), so
        // its float64 loads and stores are paid once per that many input vectors: [8192, 8192]
        // axis 0 went from 11.5 GB/s (one row per pass) to 14.1 (two) and 16.8 (four), 2
        // threads, against a 15.2 GB/s probe.
        vector
            .split(row_r, row_group, row_in_group, std::max(1, knobs.rows_per_pass),
                   TailStrategy::GuardWithIf)
            .reorder(row_in_group, k0, row_group)
            .unroll(row_in_group);
        vector.specialize(parallel).parallel(task);
        kind.specialize(parallel).parallel(task);
    }

    // Add the chunks' partial rows and finish, a vector of outputs at a time. The p_kind
    // specialisations come first: a branch without them evaluates every kind's root (pow
    // included) for each output.
    for (Stage kind : specialize_kinds(s.out, s)) {
        Stage wide = kind.specialize(kept >= lanes_n);
        wide.split(k0, kt, kv, lanes_n, TailStrategy::ShiftInwards).vectorize(kv);
        kind.split(k0, kt, kv, 1);
    }
    s.out.split(k0, kt, kv, 1);
    s.acc.compute_at(s.out, kt);
    s.acc.specialize(kept >= lanes_n).vectorize(k0, lanes_n);
    s.acc.update().reorder(k0, chunk_r).specialize(kept >= lanes_n).vectorize(k0, lanes_n);
}

// Any pattern, any strides: the fallback for shapes the dedicated patterns do not cover, such
// as [32, 256, 56, 56] axes {0, 2} (innermost first: kept, reduced, kept, reduced).
//
// When the innermost dim is kept and dense (a reduced dim has output extent 1), outputs are
// taken in runs along it: a run's accumulators sit on the stack (row_vectors vectors, L1)
// while the reduced dims are walked in storage order, each reduced point adding its run of
// neighbouring inputs with vector loads. A run is the whole row when it is short enough, so
// the example above reads each 56 x 56 plane front to back. Otherwise outputs accumulate one
// by one.
//
// Dims 1 and 2 (one of them kept: merged dims alternate) are fused into the task loop:
// large inputs run one task per point of them, small ones a single task. The single task
// replaces a serial copy of the loop nests: every copy outside a parallel loop lands in the
// kernel's entry function, and LLVM's time grows faster than that function's size (with a
// serial copy a float32 general kernel took 26 s to generate, without it 3 s; through the
// pool, [6, 12, 10, 24] axes {0, 2} takes 3.8 us, near the serial inner pattern's 3.6 us for
// axes {2, 3}, lpnorm_bench AVX-512). Fusing every output dim instead
// hid from bounds inference that a run is one point of the outer dims, and each run allocated
// accumulators for whole dims on the heap.
//
// [32, 256, 56, 56] axes {0, 2}, float32 p = 2, AVX2, 2 threads: one scalar accumulation per
// output took 14.6 ms (16% of the streaming-read probe); runs of 16 vectors 6.7 ms (69%);
// with 4 rows of the outermost reduced dim side by side, 4.2 ms (runs of 1 vector, 2x that;
// one row at a time, 1.4x), against a 4.6 ms probe measured beside them (tools/autotune
// reduce_general --isa avx2, before the vectors took their side-by-side rows together).
void schedule_general(ReduceStages s, const ReduceBuffers &b, const Target &target,
                      const ReduceKnobs &knobs) {
    Expr total = 1;
    for (const Expr &e : b.input_extent) {
        total *= cast<int64_t>(e);
    }
    const Expr large = total >= knobs.parallel_min_elements;
    // One accumulator vector: a run's vectors are the independent accumulators (so
    // vector_multiple plays no part here), and narrow vectors fit short rows and split long
    // ones with less overlap. With vector_multiple = 2 instead, float16 rows of 24 on AVX-512
    // (32 lanes) fell back to one output at a time, and rows of 56 float32 ran as [0, 48) and
    // [8, 56).
    const int lanes = target.natural_vector_size(s.accum_type);
    const int max_run = lanes * std::max(1, knobs.row_vectors);
    const Expr row = b.output_extent[0];
    const Expr dense = row >= lanes && b.input_inner_stride == 1;
    // A run is a whole row when it fits, else max_run outputs, the row's last run shifted
    // inwards to end at the row's end (outputs are pure, so some are written twice). A run's
    // last vector is masked when the row is not whole vectors (and half vectors are used when
    // they make it whole, below): float16 rows of 56 on AVX-512 (16 lanes) ran as two runs of
    // 48, [0, 48) and [8, 56): [32, 256, 56, 56] axes {0, 2} took 2.57 ms, then 2.17 masked
    // (lpnorm_bench, AVX-512).
    const Expr run = min(row, max_run);
    const Var v0 = s.vars[0];
    Var chunk("chunk"), in_chunk("in_chunk"), dims12("dims12"), task("task"), in_task("in_task");
    const Expr points12 = b.output_extent[1] * b.output_extent[2];
    auto parallelize = [&](Stage stage) {
        stage.fuse(s.vars[1], s.vars[2], dims12)
            .split(dims12, task, in_task, select(large, 1, points12), TailStrategy::ShiftInwards)
            .parallel(task);
    };
    for (Stage kind : specialize_kinds(s.out, s)) {
        Stage runs = kind.specialize(dense);
        runs.split(v0, chunk, in_chunk, run, TailStrategy::ShiftInwards).vectorize(in_chunk, lanes);
        parallelize(runs);
        kind.split(v0, chunk, in_chunk, 1);
        parallelize(kind);
    }
    s.acc.compute_at(s.out, chunk).bound_storage(v0, max_run).store_in(MemoryType::Stack);
    for (size_t d = 1; d < s.vars.size(); d++) {
        s.acc.bound_storage(s.vars[d], 1);
    }
    s.acc.specialize(dense).vectorize(v0, lanes);
    // One vector of the run's outputs innermost, then `streams` rows of the last reduced dim
    // (the runtime puts the outermost reduced dim there), then the run's other vectors, then
    // the other reduced dims in storage order: each run adds neighbouring inputs from
    // `streams` places at once, as the inner pattern reads its rows. One place at a time,
    // [32, 256, 56, 56] axes {0, 2} read its 56 x 56 planes one after the other, 12 KiB
    // streams too short for the hardware prefetcher: 5.6 ms, 68% of the probe; side by side
    // 3.7 ms, 104% (lpnorm_bench, AVX-512, float32).
    //
    // Each vector takes its `streams` terms before the next vector: its accumulator is loaded
    // and stored once per `streams` terms. With the vectors innermost it was loaded and stored
    // once per term, and a masked last vector stalled on every term: a masked load cannot take
    // its value from the masked store before it, so it waits for the store to reach the cache.
    // Kernel alone, AVX-512: float16 [6, 12, 10, 24] axes {0, 2} went from 9 us to 5.3, and
    // rows of 24 on a 22 MB float16 input from 2.4 ms to 1.05.
    const int last = s.r.dimensions() - 1;
    RVar group("group"), in_group("in_group");
    Stage update = s.acc.update();
    update.split(s.r[last], group, in_group, std::max(1, knobs.streams), TailStrategy::GuardWithIf)
        .unroll(in_group);
    std::vector<VarOrRVar> order = {v0, in_group};
    for (int d = 0; d < last; d++) {
        order.emplace_back(s.r[d]);
    }
    order.emplace_back(group);
    update.reorder(order);
    Var vector("vector"), lane("lane");
    auto vectorize_row = [&](Stage stage, int width) {
        stage.split(v0, vector, lane, width, TailStrategy::GuardWithIf)
            .vectorize(lane)
            .reorder(lane, in_group, vector);
    };
    // Half vectors when they make a row whole and full ones do not: float16 rows of 24 on
    // AVX-512 (16 lanes of float32) run as three unmasked vectors of 8 instead of one of 16
    // and one masked. The masked vector still stalls once per `streams` terms. Kernel alone,
    // AVX-512: [6, 12, 10, 24] axes {0, 2} went from 5.3 us to 2.5 (lpnorm_bench: 2.8 us,
    // against 3.6 for the inner pattern's axes {2, 3} in the same run).
    const int half = lanes / 2;
    for (Stage kind : specialize_kinds(update, s)) {
        Stage dense_kind = kind.specialize(dense);
        if (half >= 2) {
            vectorize_row(dense_kind.specialize(row % lanes != 0 && row % half == 0), half);
        }
        vectorize_row(dense_kind, lanes);
    }
}

}  // namespace

void schedule_reduction_cpu(ReducePattern pattern, const ReduceStages &stages,
                            const ReduceBuffers &buffers, const Target &target,
                            const ReduceKnobs &knobs) {
    switch (pattern) {
    case ReducePattern::all: schedule_all(stages, buffers, target, knobs); break;
    case ReducePattern::inner: schedule_inner(stages, buffers, target, knobs); break;
    case ReducePattern::outer:
    case ReducePattern::middle: schedule_strided(stages, buffers, target, knobs); break;
    case ReducePattern::general: schedule_general(stages, buffers, target, knobs); break;
    }
}

}  // namespace lpnorm::sched
