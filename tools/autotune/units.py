"""Tuning units: a generator with fixed params, the knobs its schedule reads, and its cases.

Cases are in the harness's notation (harness.cpp): reductions "E0xE1x...@MASK", extents
innermost first and the reduced dims as a bit mask; pooling "WxHxCxN/kKxK/sSxS/pPxP/dDxD".
`bench` are the benchmark shapes of bench/README.md after canonicalisation (reduce_general:
[32, 256, 56, 56] axes {0, 2}, its outermost reduced dim placed last as the runtime does); they
are verified (p = 2) and timed.
`verify` are small ragged shapes (tails around the vector width, both sides of the parallel
and plane thresholds), verified for every kind of p and not timed. `tiny` replaces `bench` for
flow tests under an emulator.
"""
from dataclasses import dataclass, field


@dataclass
class Unit:
    name: str
    generator: str
    family: str          # which knobs .def: reduce or pool
    params: list         # fixed generator params
    knobs: list          # the knobs its schedule reads
    bench: list
    verify: list = field(default_factory=list)
    tiny: list = field(default_factory=list)
    # The highest kind of p its kernel takes (the harness's kinds, in order: for pooling
    # p = 1, 2, 3, 4, 5 and 2.5); None: every kind.
    max_p_kind: int = None

    @property
    def harness(self):
        return self.family

    @property
    def harness_args(self):
        return [] if self.max_p_kind is None else ["--max-p-kind", str(self.max_p_kind)]


# A unit searches only the knobs its timed shapes can tell apart. A thread threshold is
# searched only where a timed shape is small enough to fall on either side of it (all: 4096
# elements, inner: 240x72); on large shapes alone every value takes the same parallel path,
# so what the search "finds" is noise, and it would move small inputs of other shapes to or
# from the thread pool unseen. Likewise pooling's plane and strip knobs (pool_2d below).
_CONTIGUOUS = ["vector_multiple", "parallel_min_elements", "task_elements", "streams"]
# min_tasks is not searched either: its best value follows the core count, which a kernel
# cannot see (2 won on this 2-core machine and would leave a 16-core one 2 tasks).
_STRIDED = ["vector_multiple", "rows_per_pass"]
_SUM = ["reducer=sum"]

UNITS = {u.name: u for u in [
    # streams first: it is what moves the large shape. No thread threshold: the one small
    # shape, 4096, runs serially for every value but the lowest, so the search only found
    # noise (an AVX2 run moved it to 8192, unseen by either shape).
    Unit("reduce_all", "reduce_all", "reduce", _SUM,
         ["streams", "vector_multiple", "task_elements", "serial_streams"],
         bench=["25690112@1", "4096@1"],
         verify=["1@1", "7@1", "17@1", "33@1", "1000003@1"],
         tiny=["4099@1"]),
    # Rows of 4099 check every kind of p where long rows are read one at a time.
    Unit("reduce_inner", "reduce_inner", "reduce", _SUM, _CONTIGUOUS + ["sequential_row_elements"],
         bench=["3136x8192@1", "8192x8192@1", "240x72@1"],
         verify=["1x9@1", "8x3@1", "37x5@1", "17x1021@1", "1000x1000@1", "4099x37@1"],
         tiny=["37x5@1"]),
    Unit("reduce_outer", "reduce_outer", "reduce", _SUM, _STRIDED,
         bench=["8192x8192@2"],
         verify=["1x9@2", "5x37@2", "17x3@2", "1000x1000@2"],
         tiny=["17x33@2"]),
    Unit("reduce_middle", "reduce_middle", "reduce", _SUM, _STRIDED,
         bench=["3136x256x32@2"],
         verify=["5x7x3@2", "17x33x9@2", "1000x100x10@2"],
         tiny=["17x5x3@2"]),
    Unit("reduce_general", "reduce_general", "reduce", _SUM, ["row_vectors", "streams"],
         bench=["56x56x256x1x1x1x1x32@130"],
         verify=["5x7x3x1x1x1x1x6@130", "5x7x3x4x1x1x1x1@10", "3x4x5x2x3x1x1x1@21",
                 "60x30x70x1x1x1x1x9@129"],
         tiny=["5x7x3x1x1x1x1x6@130"]),
    Unit("pool_1d", "pool", "pool", ["spatial=1"], ["vector_multiple"],
         bench=["8192x64x32/k4/s2"],
         verify=["37x3x2/k4/s2", "50x2x2/k3/s1/p1/d2", "4099x20x4/k4/s2"],
         tiny=["37x3x2/k4/s2"]),
    # The 2-D kernels, each timed on the shapes the runtime gives it (runtime/pool.cpp: the
    # flat kernel first, then the direct one, else the row kernel; kernel_abi.h says which
    # windows each takes). The row kernel keeps 3x3 windows with a pad along the row on large
    # planes and 2x2 s2 rows of fewer than kDirectMinRow outputs. 2048 planes: whole planes per
    # task for every min_planes in range, strips never used; small planes are grouped into tasks
    # (task_elements) and computed in blocks of rows (block_elements), as the large ones are.
    # min_tasks follows the core count.
    Unit("pool_2d", "pool", "pool", ["spatial=2"],
         ["vector_multiple", "block_elements", "task_elements"],
         bench=["112x112x64x32/k3x3/s1x1/p1x1", "112x112x64x32/k3x3/s2x2/p1x1",
                "14x14x512x1/k2x2/s2x2"],
         verify=["13x11x3x2/k3x3/s2x2/p1x1", "9x7x3x2/k2x3/s1x2/d2x1",
                 "57x56x1x1/k3x3/s1x1/p1x1", "21x19x30x10/k2x2/s2x2", "130x100x4x2/k3x3/s1x1/p1x1"],
         tiny=["13x11x3x2/k3x3/s2x2/p1x1"]),
    # Stride 1, output the input's size, planes of at most 64x64 padded, p = 1 to 4
    # (pool_flat_window). Its tasks group small planes (task_elements); min_tasks follows the
    # core count.
    Unit("pool_2d_flat", "pool", "pool", ["spatial=2", "flat_plane=true"],
         ["vector_multiple", "task_elements"],
         bench=["28x28x256x8/k3x3/s1x1/p1x1", "14x14x512x1/k3x3/s1x1/p1x1",
                "56x56x64x8/k3x3/s1x1/p1x1"],
         verify=["13x11x16x2/k3x3/s1x1/p1x1", "7x9x17x1/k3x3/s1x1/p1x1",
                 "20x12x16x1/k3x3/s1x1/p2x2/d2x2", "30x20x9x2/k5x5/s1x1/p2x2",
                 "62x62x16x1/k3x3/s1x1/p1x1"],
         tiny=["13x11x16x2/k3x3/s1x1/p1x1"], max_p_kind=3),
    # 2x2 windows of stride 2 inside rows of at least 8 outputs, p = 1 to 4
    # (pool_direct_window). A task per plane: only the vector width is a knob.
    Unit("pool_2d_direct", "pool", "pool", ["spatial=2", "direct_window=true"],
         ["vector_multiple"],
         bench=["112x112x64x32/k2x2/s2x2", "28x28x256x8/k2x2/s2x2"],
         verify=["16x9x16x1/k2x2/s2x2", "33x20x20x1/k2x2/s2x2", "100x31x17x2/k2x2/s2x2",
                 "20x9x16x1/k2x2/s2x2/p0x1"],
         tiny=["16x9x16x1/k2x2/s2x2"], max_p_kind=3),
    Unit("pool_3d", "pool", "pool", ["spatial=3"],
         ["vector_multiple", "min_planes", "strip_rows"],
         bench=["56x56x32x32x4/k2x2x2/s2x2x2"],
         verify=["9x8x7x3x2/k2x2x2/s2x2x2", "11x6x5x2x2/k3x2x2/s1x2x1/p1x0x1",
                 "30x20x20x4x5/k2x2x2/s2x2x2"],
         tiny=["9x8x7x3x2/k2x2x2/s2x2x2"]),
]}
