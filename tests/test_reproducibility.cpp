// Which settings change lpnorm's results (docs/reproducibility.md):
//  - repeated runs with the same settings: never (bit for bit);
//  - the worker count (set_num_threads 1, 2, 4): never. The schedules cut the work into tasks
//    by the problem's size alone (reduce: task_elements, min_tasks; pool: planes and strips)
//    and combine the tasks' partial sums in a fixed order, whichever thread ran them;
//  - the ISA (set_isa): the order of the additions changes with the vector width, so sums may
//    round differently, within the bound derived in isa_bound() below; the measured maximum
//    per dtype, op and p is printed.
// Sizes are above the parallel thresholds (2^18 input elements for reductions, 2^14 output
// elements for pooling), so the kernels do split into tasks.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "reference/powers.h"
#include "workload.h"

namespace lpnorm::test {
namespace {

std::vector<Case> reduction_cases() {
    struct Pattern {
        std::vector<int64_t> shape, axes, strides;
    };
    const Pattern patterns[] = {
        {{300000}, {0}, {}},           // all
        {{300, 1000}, {1}, {}},        // inner
        {{1000, 300}, {0}, {}},        // outer
        {{4, 250, 300}, {1}, {}},      // middle
        {{600, 500}, {1}, {1000, 2}},  // general (strided innermost dim)
    };
    std::vector<Case> cases;
    uint64_t seed = 100;
    for (const Pattern &pat : patterns) {
        for (DType d :
             {DType::float32, DType::float16, DType::bfloat16, DType::float64, DType::int32}) {
            const Case base = reduce_case(d, pat.shape, pat.axes, 1, seed++, pat.strides);
            for (double p : {1.0, 2.0, 3.0, 0.5, HUGE_VAL}) cases.push_back(with_p(base, p));
        }
    }
    return cases;
}

std::vector<Case> pool_cases() {
    std::vector<Case> cases;
    uint64_t seed = 200;
    for (DType d : {DType::float32, DType::float16, DType::bfloat16, DType::float64}) {
        const Case bases[] = {
            pool_case(d, {4, 16, 1024}, {4}, 1, seed++, [](PoolParams &p) { p.strides = {2}; }),
            pool_case(d, {2, 16, 64, 64}, {3, 3}, 1, seed++,
                      [](PoolParams &p) {
                          p.pads = {1, 1, 1, 1};
                      }),
            pool_case(d, {1, 4, 128, 128}, {3, 2}, 1, seed++,
                      [](PoolParams &p) {
                          p.dilations = {2, 1};
                          p.auto_pad = AutoPad::same_upper;
                      }),
            pool_case(d, {2, 8, 16, 16, 16}, {3, 3, 3}, 1, seed++,
                      [](PoolParams &p) { p.pads = {1, 1, 1, 1, 1, 1}; }),
        };
        for (const Case &base : bases) {
            for (double p : {1.0, 2.0, 3.0, 2.5}) cases.push_back(with_p(base, p));
        }
    }
    return cases;
}

using Outputs = std::vector<std::vector<unsigned char>>;

// Whether this build has kernels of every dtype at `isa` (the test job's Linux build has
// SSE4.1's of some types only: tools/dev.sh, sse41_dtypes_flag).
bool isa_has_every_dtype(Isa isa) {
    std::set<DType> dtypes, at_isa;
    for (const VariantInfo &v : compiled_variants()) {
        dtypes.insert(v.dtype);
        if (v.isa == isa) at_isa.insert(v.dtype);
    }
    return at_isa == dtypes;
}

// Every case's output at the current ISA. At an ISA whose kernels this build has for some
// dtypes only, a case refused for lack of a kernel there is left empty (and out of the
// comparisons); any other error fails.
Outputs run_all(const std::vector<Case> &cases, bool partial_isa) {
    Outputs out;
    for (const Case &c : cases) {
        std::string error;
        out.push_back(run_case(c, c.input->t, &error));
        if (partial_isa && error.find("in this build") != std::string::npos) {
            out.back().clear();
            continue;
        }
        EXPECT_TRUE(error.empty()) << error;
    }
    return out;
}

// Number of outputs that differ from `ref` in any bit.
int count_differences(const std::vector<Case> &cases, const Outputs &ref, const Outputs &got,
                      const char *what) {
    int cases_differing = 0;
    for (size_t i = 0; i < cases.size(); i++) {
        if (got[i] != ref[i]) {
            if (cases_differing++ < 5) ADD_FAILURE() << what << ": " << cases[i].name << " differs";
        }
    }
    return cases_differing;
}

bool is_float(DType d) {
    return d == DType::float32 || d == DType::float16 || d == DType::bfloat16 ||
           d == DType::float64;
}

// Precision in bits (t: 2^-t is the unit roundoff u of round to nearest) of a float dtype.
int precision(DType d) {
    switch (d) {
    case DType::float16: return 11;
    case DType::bfloat16: return 8;
    case DType::float32: return 24;
    default: return 53;
    }
}

// The largest relative difference between one output computed on two ISAs.
//
// What an ISA changes: the order of the additions (vector width, unrolling, stream and lane
// splits), and whether a reduction's square x*x is rounded before it is added (AVX2 and
// AVX-512 fuse it with the add into one FMA, SSE4.1 cannot; the square is exact in the
// accumulator, so the same, for 16- and 32-bit floats and small integers, and within u of
// exact for float64: one more u per term). What it does not: the other terms (|x|,
// |x|*|x|*|x| and the pooling products are strict IEEE operations on the same inputs, so the
// same bits on every ISA; pow terms are allowed to differ by pow's error, 4u each, the figure
// the reference tests use, or 3.6e-13 each for the float64 terms of float32 reductions, which
// come from lpnorm's vector power, fused into FMAs or not: ref::pow_error), the
// accumulator type (reductions: float32 for float16/bfloat16, float64 otherwise; pooling:
// float32 for 16- and 32-bit floats, float64 for float64), and the root (the same function).
// Except float32 rows of p = 1, 2, 3 (the inner pattern, contiguous rows): the CPU kernels sum
// their float32 terms in float32 partial sums of at most 8 terms (one vector per row, so their
// members change with the vector width), added in float64 (docs/semantics.md). Their terms
// are float32 products: rounded once for p = 2 (or fused into the add), twice for p = 3.
//
// A sum of n non-negative terms, added in any order, is within a factor 1 +- g of the exact
// sum S, g = gamma_{n-1} = (n-1)u / (1 - (n-1)u) (Higham, Accuracy and Stability of Numerical
// Algorithms, sec. 4.2), u the accumulator's unit roundoff. Two orders are therefore within
// dS = 2 e S of each other, e = (1 + g)(1 + e_term) - 1. The root turns a relative difference
// d into d / p (first order) plus its own error on each side: sqrt is correctly rounded (u),
// the cube root and pow are within 4u. L1 has no root.
bool float32_blocks(const Case &c) {
    const Tensor &t = c.input->t;
    const double p = c.p();
    return !c.pooling && c.dtype == DType::float32 && (p == 1 || p == 2 || p == 3) &&
           c.reduce.axes.size() == 1 && c.reduce.axes[0] == t.rank - 1 &&
           t.strides[t.rank - 1] == 1;
}

double relative_bound(const Case &c) {
    const bool half_acc = c.pooling ? c.dtype != DType::float64
                                    : c.dtype == DType::float16 || c.dtype == DType::bfloat16;
    const double u = std::ldexp(1.0, half_acc ? -24 : -53);
    const double p = c.p();
    const bool pow_terms = !(p == 1 || p == 2 || p == 3 || (c.pooling && p == std::floor(p)));
    const double k = double(c.terms - 1);
    double g = k * u / (1 - k * u);
    if (float32_blocks(c)) {
        // The partial sums' float32 additions and terms, then the float64 sums.
        const double u32 = std::ldexp(1.0, -24), g_block = double(ref::float32_block_gamma());
        const double term = p == 1 ? 0 : p == 2 ? u32 : 2 * u32 + u32 * u32;
        g = (1 + g_block) * (1 + term) * (1 + g) - 1;
    }
    const bool rounded_squares = !c.pooling && p == 2 && c.dtype == DType::float64;
    const bool float32_terms = !c.pooling && c.dtype == DType::float32;
    const double t = pow_terms ? double(ref::pow_error(float32_terms, u)) : rounded_squares ? u : 0;
    const double e = g + t + g * t;  // (1 + g)(1 + t) - 1, without cancellation
    const double ds = 2 * e;
    if (p == 1) return ds;
    if (p == 2) return ds / 2 + 2 * u;
    return ds / p + 2 * 4 * u;
}

// The bound in output units. Floats: two values a relative d apart round, to t bits, to at
// most floor(2 d 2^t) + 1 ulps apart (an ulp of a is above |a| 2^-t, and the lower one's ulps
// are at most half as large). Integers: truncation toward zero, floor(d |a|) + 1 units apart.
// Exact cases: p = +-inf selects an element (no arithmetic); integer inputs with p = 1, 2, 3
// have integer terms and sums below 2^53 (|x| <= 100, n <= 2^19), exact on every ISA.
double isa_bound(const Case &c, double magnitude) {
    const double p = c.p();
    if (std::isinf(p) || p == 0) return 0;
    if (!is_float(c.dtype) && (p == 1 || p == 2 || p == 3)) return 0;
    const double d = relative_bound(c);
    if (is_float(c.dtype)) return std::floor(2 * d * std::ldexp(1.0, precision(c.dtype))) + 1;
    return std::floor(d * magnitude * (1 + d)) + 1;
}

// Distance in ulps between two floats of `bytes` bytes (NaN only equals NaN), or in units
// between two integers.
double distance(DType d, const unsigned char *a, const unsigned char *b, double *magnitude) {
    const long double x = ref::load(d, a), y = ref::load(d, b);
    *magnitude = double(std::max(std::fabs(x), std::fabs(y)));
    if (!is_float(d)) return double(std::fabs(x - y));
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y) ? 0 : HUGE_VAL;
    const size_t n = dtype_size(d);
    uint64_t ua = 0, ub = 0;
    std::memcpy(&ua, a, n);
    std::memcpy(&ub, b, n);
    // Sign-magnitude bits to a line of consecutive integers; long double holds them exactly.
    const uint64_t sign = uint64_t(1) << (8 * n - 1);
    auto ordered = [sign](uint64_t v) {
        return v & sign ? -(long double)(v & ~sign) : (long double)v;
    };
    return double(std::fabs(ordered(ua) - ordered(ub)));
}

struct Measured {
    std::vector<double> max_units;  // per pair of ISAs, in the order compared
    double bound_min = HUGE_VAL, bound_max = 0;
};

std::string group_of(const Case &c) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%-6s %-8s p=%g", c.pooling ? "pool" : "reduce",
                  dtype_name(c.dtype), c.p());
    return buf;
}

// Compares every output of `got` (one ISA) with `ref` (another) within isa_bound().
void compare_isas(const std::vector<Case> &cases, const Outputs &ref, const Outputs &got,
                  const std::string &names, size_t pair,
                  std::map<std::string, Measured> *measured) {
    for (size_t i = 0; i < cases.size(); i++) {
        const Case &c = cases[i];
        if (ref[i].empty() || got[i].empty()) continue;  // not run at one of the two ISAs
        const size_t size = dtype_size(c.dtype);
        Measured &m = (*measured)[group_of(c)];
        int reported = 0;
        for (size_t at = 0; at + size <= ref[i].size(); at += size) {
            double magnitude = 0;
            const double units = distance(c.dtype, &ref[i][at], &got[i][at], &magnitude);
            const double bound = isa_bound(c, magnitude);
            m.max_units.resize(std::max(m.max_units.size(), pair + 1));
            m.max_units[pair] = std::max(m.max_units[pair], units);
            m.bound_min = std::min(m.bound_min, bound);
            m.bound_max = std::max(m.bound_max, bound);
            if (units > bound && reported++ < 3) {
                ADD_FAILURE() << names << ": " << c.name << ": output " << at / size
                              << " differs by " << units << (is_float(c.dtype) ? " ulps" : "")
                              << ", bound " << bound;
            }
        }
    }
}

struct IsaScope {
    ~IsaScope() {
        set_isa(Isa::auto_detect);
        set_num_threads(0);
    }
};

TEST(Reproducibility, RepeatedRunsThreadCountsAndIsas) {
    IsaScope restore;
    std::vector<Case> cases = reduction_cases();
    for (Case &c : pool_cases()) cases.push_back(std::move(c));

    std::vector<std::pair<Isa, Outputs>> per_isa;
    for (Isa isa : all_isas()) {
        std::string why;
        if (!force_isa(isa, &why)) {
            std::printf("[ skipped  ] %s: %s\n", isa_name(isa), why.c_str());
            continue;
        }
        set_num_threads(1);
        const bool partial = !isa_has_every_dtype(isa);
        const Outputs ref = run_all(cases, partial);
        // Four more runs: once more on one worker, twice on two, once on four.
        for (const int threads : {1, 2, 2, 4}) {
            set_num_threads(threads);
            const std::string what = std::string(isa_name(isa)) + ", " + std::to_string(threads) +
                                     (threads == 1 ? " worker, repeated run" : " workers vs 1");
            EXPECT_EQ(count_differences(cases, ref, run_all(cases, partial), what.c_str()), 0)
                << what;
        }
        per_isa.emplace_back(isa, ref);
    }
    ASSERT_FALSE(per_isa.empty()) << "no ISA variant can run here";

    std::map<std::string, Measured> measured;
    std::string header;
    size_t pairs = 0;
    for (size_t i = 0; i < per_isa.size(); i++) {
        for (size_t j = i + 1; j < per_isa.size(); j++) {
            const std::string names =
                std::string(isa_name(per_isa[i].first)) + "/" + isa_name(per_isa[j].first);
            compare_isas(cases, per_isa[i].second, per_isa[j].second, names, pairs++, &measured);
            char column[32];
            std::snprintf(column, sizeof column, " %12s", names.c_str());
            header += column;
        }
    }
    std::printf(
        "[ info     ] %zu calls per run; largest difference between ISAs (ulps; integers: "
        "units):\n",
        cases.size());
    std::printf("    %-24s%s  bound per call\n", "", header.c_str());
    for (const auto &[group, m] : measured) {
        std::printf("    %-24s", group.c_str());
        for (double units : m.max_units) std::printf(" %12g", units);
        std::printf("  %g..%g\n", m.bound_min, m.bound_max);
    }
}

}  // namespace
}  // namespace lpnorm::test
