// Every compiled pooling variant against the reference: each ISA x dtype x spatial rank, p
// classes, both modes and overhang rules, strides, dilations, pads, auto_pad and ceil_mode,
// on widths around the vector lengths, channels-last views, NaN and inf.
#ifdef _WIN32
#define NOMINMAX
#define WIN32_LEAN_AND_MEAN
#define PSAPI_VERSION 2  // GetProcessMemoryInfo from kernel32 (K32GetProcessMemoryInfo)
#include <windows.h>
// windows.h first: psapi.h uses its types.
#include <psapi.h>
#else
#include <sys/resource.h>
#endif

#include <cmath>
#include <sstream>
#include <tuple>

#include "kernel_abi.h"
#include "reference/pool_reference.h"
#include "test_util.h"

namespace lpnorm::test {
namespace {

const std::vector<DType> kPoolDtypes = {DType::float32, DType::float16, DType::bfloat16,
                                        DType::float64};
const std::vector<double> kPoolPs = {1, 2, 3, 4, 2.5, 0.5, 7};

// Runs lpnorm::pool into a canary-filled output and checks the shape and every value.
::testing::AssertionResult check_pool(const Tensor &x, const PoolParams &params) {
    const ref::Result expected = ref::pool(x, params);
    if (!expected.ok) {
        return ::testing::AssertionFailure()
               << "reference rejects " << describe_pool(x, params) << ": " << expected.error;
    }
    std::vector<int64_t> shape;
    const Status shape_status = pool_output_shape(x.shape_vector(), params, &shape);
    if (!shape_status.ok() || shape != expected.shape) {
        return ::testing::AssertionFailure()
               << describe_pool(x, params) << ": pool_output_shape gives " << shape_string(shape)
               << " (" << shape_status.message() << "), expected " << shape_string(expected.shape);
    }
    Array out = make_array(x.dtype, expected.shape);
    fill_bytes(&out, 0xA5);
    const Status s = pool(x, out.t, params);
    if (s.code() == ErrorCode::unsupported && backend_lacks_dtype(x.dtype, "pool")) {
        return ::testing::AssertionSuccess();  // the documented answer of a GPU backend
    }
    if (!s.ok()) {
        return ::testing::AssertionFailure() << describe_pool(x, params) << ": "
                                             << error_code_name(s.code()) << ": " << s.message();
    }
    int bad = 0;
    std::ostringstream msg;
    msg.precision(21);
    for (size_t i = 0; i < expected.values.size(); ++i) {
        const long double got = out.at(int64_t(i));
        const ref::Value &e = expected.values[i];
        if (ref::pool_matches(x.dtype, params, e, got)) continue;
        if (bad++ < 4) {
            const ref::PoolRange r = ref::pool_allowed_range(x.dtype, params, e);
            msg << "\n  out[" << i << "] = " << got << ", exact " << e.value << " over " << e.n
                << " taps, allowed ";
            if (r.range) msg << "[" << r.lo << ", " << r.hi << "]";
            if (r.nan) msg << " NaN";
            if (r.pos_inf) msg << " +inf";
            if (r.neg_inf) msg << " -inf";
        }
    }
    if (bad) {
        return ::testing::AssertionFailure()
               << describe_pool(x, params) << ": " << bad << " of " << expected.values.size()
               << " outputs wrong" << msg.str();
    }
    return ::testing::AssertionSuccess();
}

// One geometry: input spatial shape plus the window attributes.
struct Geometry {
    std::vector<int64_t> spatial;  // input spatial sizes
    PoolParams window;             // p, mode and overhang are set by the sweep
};

// Widths around 4/8/16/32 lanes and primes, with the specialised windows (2x2 s2, 3x3 s1,
// 3x3 s2, 2x2x2 s2, 1-D k4 s2) and general ones.
std::vector<Geometry> geometries(int spatial) {
    std::vector<Geometry> g;
    for (int64_t w : {1, 2, 7, 8, 9, 16, 17, 33, 65}) {
        if (spatial == 1) {
            g.push_back({{w + 3}, window({4}, {2})});
            g.push_back({{w}, window({3}, {1}, {1, 1})});
            g.push_back({{w + 2}, window({3}, {2}, {}, {}, true)});
            g.push_back({{w}, window({2}, {1}, {}, {}, false, AutoPad::same_lower)});
        } else if (spatial == 2) {
            g.push_back({{5, w + 1}, window({2, 2}, {2, 2})});
            g.push_back({{4, w}, window({3, 3}, {1, 1}, {1, 1, 1, 1})});
            g.push_back({{6, w + 2}, window({3, 3}, {2, 2}, {}, {}, true)});
        } else {
            g.push_back({{3, 4, w + 1}, window({2, 2, 2}, {2, 2, 2})});
        }
    }
    if (spatial == 1) {
        // Stride 2 and up to 4 taps with pads and dilation: the unrolled 1-D sums' border
        // vectors at both ends (schedules/cpu_pool_1d_schedule.cpp).
        g.push_back({{19}, window({3}, {2}, {1, 1})});
        g.push_back({{30}, window({4}, {2}, {3, 2}, {2})});
        g.push_back({{40}, window({3}, {3}, {2, 0}, {4})});
        g.push_back({{23}, window({5}, {2}, {}, {3}, false, AutoPad::same_upper)});
        g.push_back({{9}, window({2}, {3}, {1, 1}, {}, true)});
    } else if (spatial == 2) {
        g.push_back({{9, 31}, window({3, 2}, {2, 3}, {1, 0, 2, 1}, {2, 3})});
        g.push_back({{7, 13}, window({4, 3}, {3, 2}, {}, {}, false, AutoPad::same_upper)});
        g.push_back({{6, 11}, window({2, 5}, {1, 4}, {1, 2, 0, 2}, {}, true)});
        g.push_back({{8, 10}, window({1, 1}, {}, {}, {}, false, AutoPad::valid)});
    } else {
        g.push_back({{5, 6, 19}, window({3, 2, 3}, {2, 1, 2}, {1, 0, 1, 1, 1, 2}, {1, 2, 1})});
        g.push_back({{4, 5, 9}, window({2, 3, 2}, {1, 2, 2}, {}, {}, true)});
    }
    return g;
}

// The process's peak resident memory so far (a high-water mark).
long peak_resident_kib() {
#ifdef _WIN32
    PROCESS_MEMORY_COUNTERS counters = {};
    GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof(counters));
    return long(counters.PeakWorkingSetSize / 1024);
#else
    struct rusage usage = {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
#endif
}

std::vector<int64_t> with_batch(int64_t n, int64_t c, const std::vector<int64_t> &spatial) {
    std::vector<int64_t> s = {n, c};
    s.insert(s.end(), spatial.begin(), spatial.end());
    return s;
}

class PoolSweep : public ::testing::TestWithParam<std::tuple<Isa, DType, int>> {
protected:
    bool select_isa(Isa isa, DType dtype) {
        return force_isa_for(isa, "pool", dtype, &skip_reason_);
    }
    void TearDown() override { set_isa(Isa::auto_detect); }

    bool check(const Tensor &x, const PoolParams &p) { return budget_.record(check_pool(x, p)); }

    // The modes and overhang rules the variant sweeps run: under emulation only the abs mode
    // without rescaling, the variants' own (the others run the row kernels, which the other
    // sweeps check there; DirectWindows took 150 s of the ARM64 suite's test time with them).
    static std::vector<PoolMode> variant_modes() {
        if (running_emulated()) return {PoolMode::abs};
        return {PoolMode::abs, PoolMode::signed_pow};
    }
    static std::vector<Overhang> variant_overhangs() {
        if (running_emulated()) return {Overhang::sum};
        return {Overhang::sum, Overhang::rescale};
    }

    // Checks `x` pooled over `window` with each of `ps`, `modes` and `overhangs`, and that each
    // call ran a kernel whose name holds `marker` ("_direct_", "_flat_") exactly when `takes`
    // and p = 1 to 4 in the abs mode without rescaling. False at the first failure.
    bool check_variant(const Tensor &x, const PoolParams &window, bool takes,
                       const std::string &marker, const std::vector<double> &ps,
                       const std::vector<PoolMode> &modes, const std::vector<Overhang> &overhangs) {
        for (double p : ps) {
            for (PoolMode mode : modes) {
                for (Overhang overhang : overhangs) {
                    PoolParams params = window;
                    params.p = p;
                    params.mode = mode;
                    params.overhang = overhang;
                    if (!check(x, params)) return false;
                    const bool expected =
                        takes && p <= 4 && mode == PoolMode::abs && overhang == Overhang::sum;
                    const std::string kernel = testing::last_kernel();
                    if (expected != (kernel.find(marker) != std::string::npos)) {
                        ADD_FAILURE() << describe_pool(x, params) << " ran " << kernel;
                        return false;
                    }
                }
            }
        }
        return true;
    }

    std::string skip_reason_;
    FailureBudget budget_;
};

TEST_P(PoolSweep, GeometriesPClassesModes) {
    const auto [isa, dtype, spatial] = GetParam();
    if (!select_isa(isa, dtype)) GTEST_SKIP() << skip_reason_;
    uint64_t seed = 7;
    for (const Geometry &g : geometries(spatial)) {
        const uint64_t case_seed = seed++;
        if (skipped_under_emulation(case_seed, 2, size_t(dtype))) continue;
        Array x = make_array(dtype, with_batch(2, 3, g.spatial));
        fill_random(&x, case_seed);
        for (double p : kPoolPs) {
            for (PoolMode mode : {PoolMode::abs, PoolMode::signed_pow}) {
                for (Overhang overhang : {Overhang::sum, Overhang::rescale}) {
                    PoolParams params = g.window;
                    params.p = p;
                    params.mode = mode;
                    params.overhang = overhang;
                    if (!check(x.t, params)) return;
                }
            }
        }
    }
}

// NaN and +-inf over vector bodies and tails.
TEST_P(PoolSweep, NaNAndInfinity) {
    const auto [isa, dtype, spatial] = GetParam();
    if (!select_isa(isa, dtype)) GTEST_SKIP() << skip_reason_;
    uint64_t seed = 70;
    for (const Geometry &g : geometries(spatial)) {
        const uint64_t case_seed = seed++;
        if (skipped_under_emulation(case_seed, 2, size_t(dtype))) continue;
        Array x = make_array(dtype, with_batch(1, 2, g.spatial));
        fill_random(&x, case_seed);
        for (int64_t i = 0; i < x.storage_elements; ++i) {
            if (i % 23 == 5) x.set_at(i, NAN);
            if (i % 31 == 7) x.set_at(i, HUGE_VAL);
            if (i % 37 == 11) x.set_at(i, -HUGE_VAL);
        }
        for (double p : {1.0, 2.0, 3.0, 2.5}) {
            for (PoolMode mode : {PoolMode::abs, PoolMode::signed_pow}) {
                PoolParams params = g.window;
                params.p = p;
                params.mode = mode;
                if (!check(x.t, params)) return;
            }
        }
    }
}

// A channels-last (N, spatial..., C) buffer passed as an N, C, spatial... view, and a view
// with a non-unit innermost stride.
TEST_P(PoolSweep, StridedViews) {
    const auto [isa, dtype, spatial] = GetParam();
    if (!select_isa(isa, dtype)) GTEST_SKIP() << skip_reason_;
    const Geometry g = geometries(spatial)[1];
    const std::vector<int64_t> shape = with_batch(2, 5, g.spatial);
    // Channels-last strides: C innermost, then the spatial dims from the last one out.
    std::vector<int64_t> strides(shape.size());
    int64_t step = shape[1];
    strides[1] = 1;
    for (size_t d = shape.size() - 1; d >= 2; --d) {
        strides[d] = step;
        step *= shape[d];
    }
    strides[0] = step;
    Array x = make_strided(dtype, shape, strides);
    fill_random(&x, 5);
    PoolParams params = g.window;
    for (double p : {1.0, 2.0, 2.5}) {
        params.p = p;
        EXPECT_TRUE(check_pool(x.t, params));
    }
    // Every other element of a dense buffer: innermost stride 2.
    std::vector<int64_t> gapped(shape.size());
    int64_t dense = 2;
    for (size_t d = shape.size(); d-- > 0;) {
        gapped[d] = dense;
        dense *= shape[d];
    }
    Array y = make_strided(dtype, shape, gapped);
    fill_random(&y, 6);
    params.p = 2;
    EXPECT_TRUE(check_pool(y.t, params));
}

// True when this build has the pooling variant `pattern` (runtime/registry.h, PoolLayout:
// "2d_channels", "2d_direct") for `dtype` on the CPU, and the CPU backend runs pooling.
bool runs_pool_variant(DType dtype, const std::string &pattern) {
    const Backend b = backend_override();
    if (b == Backend::opencl || b == Backend::cuda) return false;
    for (const VariantInfo &v : compiled_variants()) {
        if (v.op == "pool" && v.pattern == pattern && v.dtype == dtype) return true;
    }
    return false;
}
bool runs_channel_blocks(DType dtype) { return runs_pool_variant(dtype, "2d_channels"); }

// NaN, +inf and -inf at every element whose index is 5, 7 and 11 past a multiple of the
// three periods.
void scatter_non_finite(Array *x, int nan_period, int inf_period, int neg_inf_period) {
    for (int64_t i = 0; i < x->storage_elements; ++i) {
        if (i % nan_period == 5) x->set_at(i, NAN);
        if (i % inf_period == 7) x->set_at(i, HUGE_VAL);
        if (i % neg_inf_period == 11) x->set_at(i, -HUGE_VAL);
    }
}

// The 2-D shapes that take the channel-block kernels: at least 8 channels (11: the last block
// overlaps the one before), input and output rows of at least 8 (9, 14, 17, 23, 31: the
// last tile of positions overlaps), planes under 32x32; every specialised window and general
// ones. Each case runs the integer p classes, both modes and both overhang rules, then NaN
// and inf. Under an emulator one case in three runs (skipped_under_emulation), as one in two of
// the other sweeps here.
TEST_P(PoolSweep, ChannelBlocks) {
    const auto [isa, dtype, spatial] = GetParam();
    if (spatial != 2) GTEST_SKIP() << "channel blocks are 2-D only";
    if (!select_isa(isa, dtype)) GTEST_SKIP() << skip_reason_;
    const std::vector<Geometry> cases = {
        {{5, 16}, window({3, 3}, {1, 1}, {1, 1, 1, 1})},
        {{6, 33}, window({2, 2}, {2, 2})},
        {{9, 31}, window({3, 3}, {1, 1}, {1, 1, 1, 1})},
        {{12, 40}, window({3, 3}, {2, 2}, {1, 1, 1, 1}, {}, true)},
        {{7, 23}, window({2, 3}, {1, 1}, {}, {2, 1})},
        {{4, 17}, window({4, 5}, {1, 1}, {2, 1, 2, 2})},
        {{8, 20}, window({2, 2}, {1, 1}, {}, {2, 2}, false, AutoPad::same_upper)},
        {{14, 14}, window({3, 3}, {1, 1}, {1, 1, 1, 1})},
        {{6, 28}, window({2, 2}, {2, 2})},
        {{5, 9}, window({3, 3}, {1, 1}, {1, 1, 1, 1})},
    };
    const bool expect_channels = runs_channel_blocks(dtype);
    uint64_t seed = 90;
    for (const Geometry &g : cases) {
        for (int64_t channels : {11}) {  // not a multiple of the block: the last ones overlap
            const uint64_t case_seed = seed++;
            if (skipped_under_emulation(case_seed, 3, size_t(dtype))) continue;
            Array x = make_array(dtype, with_batch(2, channels, g.spatial));
            fill_random(&x, case_seed);
            for (bool specials : {false, true}) {
                if (specials) scatter_non_finite(&x, 53, 61, 67);
                // Non-integer p (pow in float32) is left out: on some of these inputs its error
                // exceeds the reference's bound on every ISA, in the row kernels too (9-12 ulp
                // near 1e-2; the open numerics issue). Its code here is the rows' expression.
                // (NaN and inf: the kinds whose roots treat them apart; this sweep runs under
                // qemu on ARM64 too, where each case costs seconds.)
                for (double p : specials ? std::vector<double>{2.0, 3.0, 7.0}
                                         : std::vector<double>{1.0, 2.0, 3.0, 4.0, 7.0}) {
                    for (PoolMode mode : {PoolMode::abs, PoolMode::signed_pow}) {
                        for (Overhang overhang : {Overhang::sum, Overhang::rescale}) {
                            PoolParams params = g.window;
                            params.p = p;
                            params.mode = mode;
                            params.overhang = overhang;
                            if (!check(x.t, params)) return;
                            const std::string kernel = testing::last_kernel();
                            // (p = 1 to 4 in the abs mode without rescaling, a stride of 1
                            // and an output of the input's size: the flat kernels take it,
                            // which FlatWindows checks; 2x2 s2 windows the direct kernels,
                            // which DirectWindows checks.)
                            if (expect_channels && kernel.find("_channels_") == std::string::npos &&
                                kernel.find("_flat_") == std::string::npos &&
                                kernel.find("_direct_") == std::string::npos) {
                                ADD_FAILURE() << describe_pool(x.t, params) << " ran " << kernel
                                              << ", not a channel-block kernel";
                                return;
                            }
                        }
                    }
                }
            }
        }
    }
}

// The windows the direct_window kernels take (kernel_abi.h, pool_direct_window(): 2x2
// kernels, a stride of 2 along the rows and every window inside the row, p = 1 to 4, the abs
// mode, no rescaling, rows of at least kDirectMinRow outputs, at least kDirectMinPlanes
// planes), with what they may vary: outer strides, dilations, pads along the outer dims (a row
// of taps outside the input), ceil_mode; rows of half a vector to a few vectors. Each runs on
// the direct kernel (where the build has one); the same windows with p = 7, the signed mode or
// rescaling, and the windows it leaves to the row kernel (3x3, a stride of 1 along the rows, a
// pad along the row, ceil_mode's last window over the row's end, shorter rows), run on the row
// kernel.
TEST_P(PoolSweep, DirectWindows) {
    const auto [isa, dtype, spatial] = GetParam();
    if (spatial != 2) GTEST_SKIP() << "direct windows are 2-D only";
    if (!select_isa(isa, dtype)) GTEST_SKIP() << skip_reason_;
    struct Case {
        Geometry g;
        bool direct_window;  // a window the direct kernel takes
    };
    const std::vector<Case> cases = {
        {{{9, 35}, window({2, 2}, {3, 2}, {1, 0, 1, 0})}, true},
        {{{6, 20}, window({2, 2}, {2, 2}, {1, 0, 1, 0}, {}, true)}, true},
        {{{5, 50}, window({2, 2}, {1, 2}, {0, 0, 1, 0}, {3, 1})}, true},
        {{{8, 6}, window({2, 2}, {1, 2}, {1, 0, 1, 0})}, false},  // rows of 3 outputs
        {{{8, 16}, window({2, 2}, {1, 2}, {1, 0, 1, 0})}, true},  // 8: AVX-512's half vector
        {{{5, 31}, window({2, 2}, {2, 2})}, true},                // 15
        {{{4, 70}, window({2, 2}, {1, 2}, {1, 0, 0, 0}, {2, 3})}, true},
        {{{4, 71}, window({2, 2}, {1, 2}, {1, 0, 0, 0}, {2, 3}, true)}, false},
        {{{9, 35}, window({2, 2}, {3, 2}, {1, 0, 1, 1})}, false},
        {{{9, 35}, window({2, 2}, {2, 1}, {1, 0, 1, 0})}, false},
        {{{6, 21}, window({3, 3}, {2, 2}, {2, 0, 2, 0}, {}, true)}, false},
        {{{7, 40}, window({3, 3}, {1, 1}, {1, 1, 1, 1}, {2, 2})}, false},
    };
    const bool expect_direct = runs_pool_variant(dtype, "2d_direct");
    const std::vector<PoolMode> modes = variant_modes();
    const std::vector<Overhang> overhangs = variant_overhangs();
    uint64_t seed = 120;
    for (const auto &[g, direct_window] : cases) {
        const uint64_t case_seed = seed++;
        if (skipped_under_emulation(case_seed, 2, size_t(dtype))) continue;
        // 4 x 5 planes: at least kDirectMinPlanes, too few channels for the channel blocks.
        Array x = make_array(dtype, with_batch(4, 5, g.spatial));
        static_assert(4 * 5 >= abi::kDirectMinPlanes && 5 < abi::kChannelBlockMinExtent);
        fill_random(&x, case_seed);
        for (bool specials : {false, true}) {
            if (specials) scatter_non_finite(&x, 41, 43, 47);
            // (p = 7: a kind the direct kernels leave to the row kernel. Non-integer p is left
            // out as in the ChannelBlocks sweep: the row kernel's float32 pow misses the
            // reference's bound on some of these inputs, the open numerics issue.)
            if (!check_variant(x.t, g.window, direct_window && expect_direct, "_direct_",
                               {1.0, 2.0, 3.0, 4.0, 7.0}, modes, overhangs)) {
                return;
            }
        }
    }
    // Too few planes: the row kernel, which cuts them into strips of rows.
    Array few = make_array(dtype, with_batch(1, abi::kDirectMinPlanes - 1, cases[0].g.spatial));
    fill_random(&few, 7);
    PoolParams params = cases[0].g.window;
    params.p = 2;
    if (!check(few.t, params)) return;
    EXPECT_EQ(std::string(testing::last_kernel()).find("_direct_"), std::string::npos)
        << testing::last_kernel();
}

// The windows the flat_plane kernels take (kernel_abi.h, pool_flat_window(): a stride of 1
// and an output of the input's size along both dims, p = 1 to 4, the abs mode, no rescaling,
// at least kFlatMinPlanes planes, a padded plane of at most kFlatMaxPlane elements), with what
// they may vary: any kernel (the unrolled 2 and 3, and others) and dilation, pads split
// unevenly or on one side only (auto_pad same_upper); rows shorter than half a vector (3),
// shorter than a vector, of one to two vectors and longer (the paths of the output's vectors). Each
// runs on the flat kernel (where the build has one); the same windows with p = 7, the signed mode
// or rescaling, and the windows it leaves to other kernels (a stride of 2, an output smaller than
// the input, a plane over kFlatMaxPlane), do not.
TEST_P(PoolSweep, FlatWindows) {
    const auto [isa, dtype, spatial] = GetParam();
    if (spatial != 2) GTEST_SKIP() << "flat windows are 2-D only";
    if (!select_isa(isa, dtype)) GTEST_SKIP() << skip_reason_;
    struct Case {
        Geometry g;
        bool flat_window;  // a window the flat kernel takes
    };
    const std::vector<Case> cases = {
        {{{9, 35}, window({3, 3}, {1, 1}, {1, 1, 1, 1})}, true},
        {{{6, 6}, window({3, 3}, {1, 1}, {1, 1, 1, 1})}, true},
        {{{5, 12}, window({3, 3}, {1, 1}, {2, 0, 0, 2})}, true},
        {{{7, 17}, window({2, 2}, {}, {}, {}, false, AutoPad::same_upper)}, true},
        {{{8, 20}, window({3, 5}, {1, 1}, {2, 3, 2, 5}, {2, 2})}, true},
        {{{11, 9}, window({4, 1}, {1, 1}, {1, 0, 2, 0})}, true},
        {{{3, 40}, window({1, 4}, {1, 1}, {0, 3, 0, 0})}, true},
        {{{4, 3}, window({3, 3}, {1, 1}, {1, 1, 1, 1})}, true},
        {{{9, 35}, window({3, 3}, {2, 1}, {1, 1, 1, 1})}, false},
        {{{9, 35}, window({3, 3}, {1, 1}, {1, 1, 1, 0})}, false},
        {{{70, 70}, window({3, 3}, {1, 1}, {1, 1, 1, 1})}, false},
    };
    const bool expect_flat = runs_pool_variant(dtype, "2d_flat");
    const std::vector<PoolMode> modes = variant_modes();
    const std::vector<Overhang> overhangs = variant_overhangs();
    uint64_t seed = 140;
    for (const auto &[g, flat_window] : cases) {
        const uint64_t case_seed = seed++;
        if (skipped_under_emulation(case_seed, 2, size_t(dtype))) continue;
        // 4 x 5 planes: at least kFlatMinPlanes.
        Array x = make_array(dtype, with_batch(4, 5, g.spatial));
        static_assert(4 * 5 >= abi::kFlatMinPlanes && 70 * 70 > abi::kFlatMaxPlane);
        fill_random(&x, case_seed);
        // The windows it leaves to other kernels: p = 2 in the abs mode, once.
        const std::vector<bool> specials_runs =
            flat_window ? std::vector<bool>{false, true} : std::vector<bool>{false};
        for (bool specials : specials_runs) {
            if (specials) scatter_non_finite(&x, 41, 43, 47);
            // (p = 7: a kind the flat kernels leave to the row kernel; non-integer p is left
            // out as in the DirectWindows sweep.)
            const bool takes = flat_window && expect_flat;
            if (flat_window ? !check_variant(x.t, g.window, takes, "_flat_",
                                             {1.0, 2.0, 3.0, 4.0, 7.0}, modes, overhangs)
                            : !check_variant(x.t, g.window, takes, "_flat_", {2.0}, {PoolMode::abs},
                                             {Overhang::sum})) {
                return;
            }
        }
    }
    // Many small planes: tasks of several planes (the knobs task_elements and min_tasks: 3
    // here), the last task holding fewer.
    Array many = make_array(dtype, with_batch(1, 113, cases[0].g.spatial));
    fill_random(&many, 9);
    if (!check_variant(many.t, cases[0].g.window, expect_flat, "_flat_", {1.0, 2.0, 3.0, 4.0},
                       {PoolMode::abs}, {Overhang::sum})) {
        return;
    }
    // Too few planes: another kernel.
    Array few = make_array(dtype, with_batch(1, abi::kFlatMinPlanes - 1, cases[0].g.spatial));
    fill_random(&few, 8);
    PoolParams params = cases[0].g.window;
    params.p = 2;
    if (!check(few.t, params)) return;
    EXPECT_EQ(std::string(testing::last_kernel()).find("_flat_"), std::string::npos)
        << testing::last_kernel();
}

std::string sweep_name(const ::testing::TestParamInfo<std::tuple<Isa, DType, int>> &info) {
    return std::string(isa_name(std::get<0>(info.param))) + "_" +
           dtype_name(std::get<1>(info.param)) + "_" + std::to_string(std::get<2>(info.param)) +
           "d";
}

INSTANTIATE_TEST_SUITE_P(AllVariants, PoolSweep,
                         ::testing::Combine(::testing::ValuesIn(all_isas()),
                                            ::testing::ValuesIn(kPoolDtypes),
                                            ::testing::Values(1, 2, 3)),
                         sweep_name);

// Large inputs that take the multi-threaded path.
TEST(PoolLarge, ThreadedPath) {
    set_num_threads(2);
    for (DType dtype : {DType::float32, DType::float16}) {
        Array x = make_array(dtype, {2, 16, 64, 67});
        fill_random(&x, 11);
        for (const PoolParams &w : {window({2, 2}, {2, 2}), window({3, 3}, {1, 1}, {1, 1, 1, 1})}) {
            PoolParams params = w;
            params.p = 2;
            EXPECT_TRUE(check_pool(x.t, params));
        }
    }
    set_num_threads(0);
}

// Dilated kernels far wider than the input: most taps of every window fall in the padding.
// The kernels leave those taps out, so the zero-padded row they sum over spans the input and
// the outputs' strides, not (kernel - 1) * dilation: with every tap kept, the first case's row
// is 530e6 elements (4 GB in float64). The fuzz target found the 2-D case under the
// sanitizer's 2 GB limit. Each window's taps straddle the input so that one of them lands in
// it (the kernel sizes are odd about the padding); the peak memory of the process must not
// grow by more than the inputs and outputs need.
TEST(PoolLarge, DilatedKernelFarWiderThanTheInput) {
    struct Case {
        std::vector<int64_t> shape;
        PoolParams window;
    };
    const std::vector<Case> cases = {
        {{1, 2, 5}, window({531}, {1}, {}, {1000000}, false, AutoPad::same_upper)},
        {{1, 3, 9, 11}, window({41, 531}, {1, 1}, {}, {65536, 1000000}, true, AutoPad::same_upper)},
        {{1, 2, 7}, window({500}, {2}, {498999995, 10}, {1000000}, true)},
    };
    const long peak_before = peak_resident_kib();
    for (Isa isa : all_isas()) {
        for (const Case &c : cases) {
            for (DType dtype : {DType::float32, DType::float64}) {
                std::string skip_reason;
                if (!force_isa_for(isa, "pool", dtype, &skip_reason)) continue;
                Array x = make_array(dtype, c.shape);
                fill_random(&x, 17);
                for (Overhang overhang : {Overhang::sum, Overhang::rescale}) {
                    PoolParams params = c.window;
                    params.p = 2;
                    params.overhang = overhang;
                    EXPECT_TRUE(check_pool(x.t, params)) << isa_name(isa);
                }
            }
        }
    }
    set_isa(Isa::auto_detect);
    EXPECT_LT(peak_resident_kib() - peak_before, 256 * 1024) << "KiB of peak memory added";
}

// Inputs beyond what one kernel call indexes (runtime/split_pool.h), with the limits lowered so
// that small tensors take the same paths: N and C sliced, a long spatial dim cut into runs of
// outputs with re-based pads. Each case: (input shape, window, index limit = chunk).
struct SplitCase {
    std::vector<int64_t> shape;
    PoolParams window;
    int64_t limit;
};

TEST(PoolSplit, RunsOfOutputsMatchTheReference) {
    const std::vector<SplitCase> cases = {
        {{2, 3, 40}, window({3}, {3}, {2, 0}, {4}), 10},  // one output per run
        {{2, 3, 23}, window({5}, {2}, {}, {3}, false, AutoPad::same_upper), 16},
        {{2, 3, 9}, window({2}, {3}, {1, 1}, {}, true), 4},
        {{1, 2, 37}, window({4}, {2}), 7},
        {{1, 2, 50}, window({3}, {1}, {1, 1}), 5},
        {{2, 2, 31, 9}, window({3, 2}, {2, 3}, {1, 0, 2, 1}, {2, 3}), 9},
        {{2, 2, 25, 6}, window({2, 5}, {1, 4}, {1, 2, 0, 2}, {}, true), 6},
        {{1, 2, 20, 2, 3}, window({3, 2, 3}, {2, 1, 2}, {1, 0, 1, 1, 1, 2}, {1, 2, 1}), 6},
        {{1, 2, 17, 3, 2}, window({2, 2, 2}, {2, 2, 2}, {}, {}, true), 6},
    };
    FailureBudget budget;
    uint64_t seed = 31;
    for (const SplitCase &c : cases) {
        for (DType dtype : kPoolDtypes) {
            Array x = make_array(dtype, c.shape);
            fill_random(&x, seed++);
            for (double p : {1.0, 2.0, 2.5})
                for (PoolMode mode : {PoolMode::abs, PoolMode::signed_pow})
                    for (Overhang overhang : {Overhang::sum, Overhang::rescale}) {
                        PoolParams params = c.window;
                        params.p = p;
                        params.mode = mode;
                        params.overhang = overhang;
                        SplitLimitsScope limits(c.limit, c.limit);
                        if (!budget.record(check_pool(x.t, params))) return;
                        EXPECT_GT(testing::last_kernel_calls(), c.shape[0] * c.shape[1])
                            << describe_pool(x.t, params) << ": not split";
                    }
        }
    }
}

// A shape that takes the channel-block kernel whole, split into single channels (the channel
// stride, 96, is beyond a limit of 16): each piece has too few channels for it and runs on the
// row kernel. (p = 7: the flat kernels would take this window with p = 1 to 4.)
TEST(PoolSplit, ChannelBlockPiecesRunOnTheRowKernel) {
    Array x = make_array(DType::float32, {2, 16, 6, 16});
    fill_random(&x, 41);
    PoolParams params = window({3, 3}, {1, 1}, {1, 1, 1, 1});
    params.p = 7;
    ASSERT_TRUE(check_pool(x.t, params));
    if (runs_channel_blocks(DType::float32)) {
        EXPECT_NE(std::string(testing::last_kernel()).find("_channels_"), std::string::npos)
            << testing::last_kernel();
    }
    SplitLimitsScope limits(16, 16);
    ASSERT_TRUE(check_pool(x.t, params));
    EXPECT_EQ(testing::last_kernel_calls(), 32);
    EXPECT_EQ(std::string(testing::last_kernel()).find("_channels_"), std::string::npos)
        << testing::last_kernel();
}

// A shape that takes the flat kernel whole, split into runs of output rows (each longer than
// a piece of 4): each run's input rows outnumber its outputs, so it runs on the row kernel.
TEST(PoolSplit, FlatRunsRunOnTheRowKernel) {
    Array x = make_array(DType::float32, {4, 5, 12, 12});
    fill_random(&x, 43);
    PoolParams params = window({3, 3}, {1, 1}, {1, 1, 1, 1});
    ASSERT_TRUE(check_pool(x.t, params));
    if (runs_pool_variant(DType::float32, "2d_flat")) {
        EXPECT_NE(std::string(testing::last_kernel()).find("_flat_"), std::string::npos)
            << testing::last_kernel();
    }
    SplitLimitsScope limits(int64_t(1) << 30, 4);
    ASSERT_TRUE(check_pool(x.t, params));
    EXPECT_GT(testing::last_kernel_calls(), 1);
    EXPECT_EQ(std::string(testing::last_kernel()).find("_flat_"), std::string::npos)
        << testing::last_kernel();
}

TEST(PoolSplit, WindowAcrossAnUnindexableStrideIsNamed) {
    // Rows 8 elements apart with a limit of 4: a 2-row window cannot be one call.
    SplitLimitsScope limits(4, 4);
    Array x = make_array(DType::float32, {1, 1, 8, 8});
    Array out = make_array(DType::float32, {1, 1, 7, 7});
    fill_bytes(&out, 0xA5);
    const std::vector<unsigned char> before = out.storage;
    PoolParams params = window({2, 2});
    const Status s = pool(x.t, out.t, params);
    EXPECT_EQ(s.code(), ErrorCode::too_large);
    EXPECT_NE(s.message().find("input.strides[2] = 8"), std::string::npos) << s.message();
    EXPECT_EQ(out.storage, before);
}

}  // namespace
}  // namespace lpnorm::test
