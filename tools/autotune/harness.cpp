// The measuring side of tools/autotune: one executable per candidate schedule, linked with the
// candidate's kernel (always named lpnorm_tune_kernel), the Halide runtime, the library's thread
// pool (runtime/thread_pool.cpp, so that thresholds and task sizes are tuned against the pool
// the library runs them on) and the bandwidth probe of bench/. For each case it checks the kernel
// against a plain double-precision loop, then times it, and prints one JSON object on stdout. It
// runs on the target machine (natively, under an emulator or through a user's runner), so it uses
// the C++ standard library only.
//
//   harness [--threads N] [--min-sample-seconds S] [--samples N] [--max-samples N]
//           [--no-time] [--probe] [--max-p-kind K] CASE...
//
// Reductions (built without LPNORM_TUNE_POOL), CASE = "E0xE1x...@MASK": input extents innermost
// first (the generator's dims) and the reduced dims as a bit mask (bit d: dim d is reduced).
// Pooling (LPNORM_TUNE_POOL), CASE = "W[xH[xD]]xCxN/kK../sS../pP../dD..": input extents
// innermost first, then per spatial dim (innermost first) the window, stride, pad (begin and
// end) and dilation; s, p and d may be left out (1, 0, 1).
//
// Every kind of p (up to K, for kernels that take the first kinds only) is checked on cases of
// at most 2^20 input elements; larger cases check p = 2 only (the timed kind), whose reference
// is cheap.
//
// Elements are float32, or float16 when built with LPNORM_TUNE_FLOAT16 (reductions only).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "HalideRuntime.h"
#include "bench_common.h"
#include "kernel_abi.h"
#include "thread_pool.h"

#include "lpnorm_tune_kernel.h"  // generated beside the kernel (measure.py)

namespace {

// Halide's errors (a bounds check, an allocation) make the kernel return an error code with
// this message, instead of aborting the process.
std::string g_halide_error;

extern "C" void record_error(void *, const char *message) { g_halide_error += message; }

[[noreturn]] void fail(const std::string &message) {
    std::fprintf(stderr, "harness: %s\n", message.c_str());
    std::exit(2);
}

std::vector<int64_t> parse_ints(const std::string &text, char sep) {
    std::vector<int64_t> values;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(sep, start);
        if (end == std::string::npos) end = text.size();
        std::string item = text.substr(start, end - start);
        char *rest = nullptr;
        long long v = std::strtoll(item.c_str(), &rest, 10);
        if (item.empty() || *rest != '\0') fail("bad number '" + item + "' in '" + text + "'");
        values.push_back(v);
        start = end + 1;
    }
    return values;
}

#if defined(LPNORM_TUNE_FLOAT16) && defined(LPNORM_TUNE_POOL)
#error "the pooling harness checks and times float32 only"
#endif

#ifdef LPNORM_TUNE_FLOAT16
// float16 elements, as their bits.
using Elem = uint16_t;
const halide_type_t kElemType(halide_type_float, 16);

// Rounds to nearest, ties to even (the inputs here are finite and at most 1 in magnitude).
Elem from_float(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    const float a = std::fabs(f);
    if (a < 6.103515625e-05f) {  // below the smallest normal float16, 2^-14: steps of 2^-24
        return static_cast<Elem>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
    }
    std::memcpy(&bits, &a, sizeof bits);
    // Drop 13 mantissa bits with rounding to even, then rebias the exponent (127 -> 15).
    uint32_t rounded = bits + 0x0FFFu + ((bits >> 13) & 1u);
    return static_cast<Elem>(sign | ((rounded >> 13) - ((127 - 15) << 10)));
}

double to_double(Elem h) {
    const int exponent = (h >> 10) & 0x1F;
    const int mantissa = h & 0x3FF;
    double magnitude =
        exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
    if (exponent == 31) magnitude = mantissa ? NAN : INFINITY;
    return (h & 0x8000) ? -magnitude : magnitude;
}

// The reference value as the output type holds it: float16 overflows to inf from 65520 on.
double representable(double v) { return std::fabs(v) >= 65520 ? std::copysign(INFINITY, v) : v; }

// Relative error allowed against the double reference: the float16 output's rounding (at most
// 2^-11) plus float32 accumulation, which on these shapes adds under 2^-12 (the longest chain
// of adds into one accumulator is a few thousand terms of rounding 2^-24 each, and their
// errors partly cancel). A wrong schedule is off by far more.
const double kTolerance = 1e-3;
#else
using Elem = float;
const halide_type_t kElemType(halide_type_float, 32);
Elem from_float(float f) { return f; }
double to_double(Elem f) { return f; }
double representable(double v) { return v; }  // the float64 reference sums stay finite here
// The float64 accumulation leaves only the float32 output's rounding (2^-24), with room.
const double kTolerance = 2e-6;
#endif

// Element storage on 64-byte (cache line) boundaries, as bench/ allocates its inputs. A
// std::vector's large blocks start 16 bytes past a page boundary, so every 64-byte load of
// the probe spanned two cache lines: the probe lost 2-3% against aligned data and the
// kernels' ratios to it came out that much higher than lpnorm_bench's.
template <typename T>
struct CacheLineAllocator {
    using value_type = T;
    CacheLineAllocator() = default;
    template <typename U>
    CacheLineAllocator(const CacheLineAllocator<U> &) {}
    T *allocate(size_t n) {
        const size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
        void *p = std::aligned_alloc(64, bytes > 0 ? bytes : 64);
        if (!p) throw std::bad_alloc();
        return static_cast<T *>(p);
    }
    void deallocate(T *p, size_t) { std::free(p); }
    template <typename U>
    bool operator==(const CacheLineAllocator<U> &) const {
        return true;
    }
    template <typename U>
    bool operator!=(const CacheLineAllocator<U> &) const {
        return false;
    }
};
using Elems = std::vector<Elem, CacheLineAllocator<Elem>>;

// A dense tensor of Elem as a Halide buffer, innermost dim first.
struct Tensor {
    Elems data;
    std::vector<halide_dimension_t> dims;
    halide_buffer_t buf{};

    explicit Tensor(const std::vector<int64_t> &extents) {
        int64_t n = 1;
        for (int64_t e : extents) {
            dims.push_back({0, static_cast<int32_t>(e), static_cast<int32_t>(n), 0});
            n *= e;
        }
        data.assign(static_cast<size_t>(n), Elem{});
        buf.host = reinterpret_cast<uint8_t *>(data.data());
        buf.type = kElemType;
        buf.dimensions = static_cast<int32_t>(dims.size());
        buf.dim = dims.data();
    }
    Tensor(const Tensor &) = delete;
};

// Deterministic values in [-1, 1), a few exactly zero (the count kind sees both).
void fill(Elems &v) {
    uint32_t state = 12345;
    for (Elem &x : v) {
        state = state * 1664525u + 1013904223u;
        float f = static_cast<float>(static_cast<int32_t>(state >> 8) - (1 << 23)) / (1 << 23);
        if ((state >> 4) % 61 == 0) f = 0.0f;
        x = from_float(f);
    }
}

struct PKind {
    int kind;
    double p;
};

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

double seconds_now() {
    using Clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

struct Timing {
    double seconds = 0;  // mean of the fastest 3 samples (noise only ever slows a run down)
    double median = 0;
    double spread = 0;  // (slowest - fastest) / fastest of those 3
    int samples = 0;
    bool stable = false;  // spread within the noise guard
};

// Samples of at least `min_sample` seconds each (several calls), until the fastest 3 agree
// within 2% or `max_samples` are taken.
template <typename Call>
Timing time_calls(Call call, double min_sample, int samples, int max_samples) {
    call();
    double t0 = seconds_now();
    call();
    double once = std::max(seconds_now() - t0, 1e-7);
    int iters = static_cast<int>(std::clamp(min_sample / once, 1.0, 1e6));
    std::vector<double> times;
    Timing t;
    while (static_cast<int>(times.size()) < max_samples) {
        double start = seconds_now();
        for (int i = 0; i < iters; i++) call();
        times.push_back((seconds_now() - start) / iters);
        if (static_cast<int>(times.size()) < std::max(samples, 3)) continue;
        std::vector<double> sorted = times;
        std::sort(sorted.begin(), sorted.end());
        t.spread = (sorted[2] - sorted[0]) / sorted[0];
        t.stable = t.spread <= 0.02;
        if (t.stable) break;
    }
    std::sort(times.begin(), times.end());
    t.seconds = (times[0] + times[1] + times[2]) / 3;
    t.median = times[times.size() / 2];
    t.samples = static_cast<int>(times.size());
    return t;
}

struct Options {
    int threads = 2;
    double min_sample = 0.02;
    int samples = 5, max_samples = 15;
    bool time = true, probe = false;
    int max_p_kind = 1 << 30;  // kinds of p above it are not checked (a kernel that refuses them)
};

// Checks `got` against `want` with a relative tolerance; returns the worst relative error
// (infinity when a value is off by more than `tolerance` or is NaN where it must not be).
double compare(const std::vector<double> &want, const Elem *got_elems, double tolerance,
               std::string *where) {
    double worst = 0;
    for (size_t i = 0; i < want.size(); i++) {
        const double got = to_double(got_elems[i]);
        const double expected = representable(want[i]);
        double err =
            got == expected ? 0 : std::fabs(got - expected) / std::max(std::fabs(expected), 1e-30);
        if (std::isnan(got) != std::isnan(expected) || std::isnan(err)) err = INFINITY;
        if (err > worst) {
            worst = err;
            if (err > tolerance) {
                *where = "element " + std::to_string(i) + ": got " + std::to_string(got) +
                         ", want " + std::to_string(expected);
                return INFINITY;
            }
        }
    }
    return worst;
}

double term(int kind, double p, double x) {
    double a = std::fabs(x);
    switch (kind) {
    case 0: return a;
    case 1: return x * x;
    case 2: return a * a * a;
    case 3: return std::pow(a, p);
    default: return x != 0 ? 1 : 0;
    }
}

double root(int kind, double p, double s) {
    switch (kind) {
    case 1: return std::sqrt(s);
    case 2: return std::cbrt(s);
    case 3: return std::pow(s, 1 / p);
    default: return s;
    }
}

// Checks `call` (the kernel for one kind of p) against `reference` for every kind in `kinds`
// (only `timed` on inputs of more than 2^20 elements, where the reference is slow), then
// times `timed` and, with opt.probe, the streaming-read probe over the input: one JSON line.
template <typename Call, typename Reference, size_t N>
std::string check_and_time(const std::string &text, const Elems &in, const Elems &out, Call call,
                           Reference reference, const PKind (&kinds)[N], PKind timed,
                           double tolerance, const Options &opt) {
    double worst = 0;
    const bool small = in.size() <= (1u << 20);
    for (PKind k : kinds) {
        if ((!small && k.kind != timed.kind) || k.kind > opt.max_p_kind) continue;
        call(k);
        std::string where;
        double err = compare(reference(k), out.data(), tolerance, &where);
        if (std::isinf(err)) {
            return "{\"case\": \"" + text +
                   "\", \"ok\": false, \"why\": \"p = " + std::to_string(k.p) + ", " + where +
                   "\"}";
        }
        worst = std::max(worst, err);
    }
    std::string json =
        "{\"case\": \"" + text + "\", \"ok\": true, \"max_rel_err\": " + number(worst);
    if (opt.time) {
        Timing t = time_calls([&] { call(timed); }, opt.min_sample, opt.samples, opt.max_samples);
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      ", \"seconds\": %.9g, \"median\": %.9g, \"spread\": %.4f, \"samples\": %d, "
                      "\"stable\": %s",
                      t.seconds, t.median, t.spread, t.samples, t.stable ? "true" : "false");
        json += buf;
    }
    if (opt.probe) {
        size_t bytes = in.size() * sizeof(Elem);
        auto r = lpnorm_bench::probe_bandwidth(in.data(), bytes, opt.threads);
        json += ", \"probe_seconds\": " + number(bytes / r.bytes_per_second);
    }
    return json + "}";
}

#ifndef LPNORM_TUNE_POOL
// ---- Reductions -----------------------------------------------------------------------------

const PKind kKinds[] = {{0, 1}, {1, 2}, {2, 3}, {3, 2.5}, {4, 0}};
const PKind kTimed = {1, 2};

struct Case {
    std::vector<int64_t> in_extents, out_extents;
    int mask = 0;
};

Case parse_case(const std::string &text) {
    size_t at = text.find('@');
    if (at == std::string::npos) fail("reduction case '" + text + "' has no @MASK");
    Case c;
    c.in_extents = parse_ints(text.substr(0, at), 'x');
    c.mask = static_cast<int>(parse_ints(text.substr(at + 1), ',')[0]);
    const bool general = c.in_extents.size() == lpnorm::abi::kGeneralRank;
    for (size_t d = 0; d < c.in_extents.size(); d++) {
        bool reduced = (c.mask >> d) & 1;
        if (!reduced)
            c.out_extents.push_back(c.in_extents[d]);
        else if (general)
            c.out_extents.push_back(1);
    }
    return c;
}

std::vector<double> reference(const Case &c, const Elems &x, PKind k) {
    int64_t out_n = 1;
    for (int64_t e : c.out_extents) out_n *= e;
    std::vector<double> acc(static_cast<size_t>(out_n), 0.0);
    // Output index of each input element: its coordinates in the kept dims, densely.
    std::vector<int64_t> coord(c.in_extents.size(), 0);
    for (size_t i = 0; i < x.size(); i++) {
        int64_t o = 0, stride = 1;
        for (size_t d = 0; d < coord.size(); d++) {
            if (!((c.mask >> d) & 1)) {
                o += coord[d] * stride;
                stride *= c.in_extents[d];
            }
        }
        acc[o] += term(k.kind, k.p, to_double(x[i]));
        for (size_t d = 0; d < coord.size() && ++coord[d] == c.in_extents[d]; d++) coord[d] = 0;
    }
    for (double &v : acc) v = root(k.kind, k.p, v);
    return acc;
}

std::string run_case(const std::string &text, const Options &opt) {
    Case c = parse_case(text);
    Tensor in(c.in_extents), out(c.out_extents);
    fill(in.data);
    auto call = [&](PKind k) {
        if (int err = lpnorm_tune_kernel(&in.buf, c.mask, k.kind, k.p, &out.buf)) {
            fail("kernel returned " + std::to_string(err) + " on " + text + ": " + g_halide_error);
        }
    };
    return check_and_time(
        text, in.data, out.data, call, [&](PKind k) { return reference(c, in.data, k); }, kKinds,
        kTimed, kTolerance, opt);
}

#else
// ---- Pooling --------------------------------------------------------------------------------

const PKind kKinds[] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 2.5}};
const PKind kTimed = {1, 2};

struct Case {
    std::vector<int64_t> in_extents, out_extents;
    int spatial = 0;
    int32_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};
};

Case parse_case(const std::string &text) {
    Case c;
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = std::min(text.find('/', start), text.size());
        parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    c.in_extents = parse_ints(parts[0], 'x');
    c.spatial = static_cast<int>(c.in_extents.size()) - 2;
    if (c.spatial < 1 || c.spatial > 3) fail("pooling case '" + text + "' needs 3 to 5 dims");
    for (size_t i = 1; i < parts.size(); i++) {
        if (parts[i].empty()) fail("empty field in '" + text + "'");
        std::vector<int64_t> v = parse_ints(parts[i].substr(1), 'x');
        if (static_cast<int>(v.size()) != c.spatial) {
            fail("'" + parts[i] + "': one per spatial dim");
        }
        int32_t *field = parts[i][0] == 'k'   ? c.k
                         : parts[i][0] == 's' ? c.s
                         : parts[i][0] == 'p' ? c.pad
                         : parts[i][0] == 'd' ? c.dil
                                              : nullptr;
        if (!field) fail("unknown field '" + parts[i] + "'");
        for (int d = 0; d < c.spatial; d++) field[d] = static_cast<int32_t>(v[d]);
    }
    for (int d = 0; d < c.spatial + 2; d++) {
        int64_t e = c.in_extents[d];
        if (d < c.spatial) e = (e + 2 * c.pad[d] - ((c.k[d] - 1) * c.dil[d] + 1)) / c.s[d] + 1;
        c.out_extents.push_back(e);
    }
    return c;
}

// |x|^p summed over each window's in-bounds taps (float32 kernels sum in float32, so the
// tolerance allows for that), then the root.
std::vector<double> reference(const Case &c, const Elems &x, PKind k) {
    int64_t out_n = 1;
    for (int64_t e : c.out_extents) out_n *= e;
    std::vector<double> y(static_cast<size_t>(out_n));
    std::vector<int64_t> o(c.spatial + 2, 0);
    for (int64_t i = 0; i < out_n; i++) {
        int64_t rest = i;
        for (int d = 0; d < c.spatial + 2; d++) {
            o[d] = rest % c.out_extents[d];
            rest /= c.out_extents[d];
        }
        int64_t plane = o[c.spatial] + c.in_extents[c.spatial] * o[c.spatial + 1];
        double sum = 0;
        int taps[3] = {c.k[0], c.spatial > 1 ? c.k[1] : 1, c.spatial > 2 ? c.k[2] : 1};
        for (int t2 = 0; t2 < taps[2]; t2++)
            for (int t1 = 0; t1 < taps[1]; t1++)
                for (int t0 = 0; t0 < taps[0]; t0++) {
                    int t[3] = {t0, t1, t2};
                    int64_t offset = 0, step = 1;
                    bool inside = true;
                    for (int d = 0; d < c.spatial; d++) {
                        int64_t at = o[d] * c.s[d] - c.pad[d] + t[d] * c.dil[d];
                        inside = inside && at >= 0 && at < c.in_extents[d];
                        offset += at * step;
                        step *= c.in_extents[d];
                    }
                    if (!inside) continue;
                    const size_t at_input = static_cast<size_t>(offset + plane * step);
                    double v = std::fabs(to_double(x[at_input]));
                    sum += k.kind == 5 ? std::pow(v, k.p) : std::pow(v, static_cast<int>(k.p));
                }
        y[i] = k.p == 1 ? sum : std::pow(sum, 1 / k.p);
    }
    return y;
}

std::string run_case(const std::string &text, const Options &opt) {
    Case c = parse_case(text);
    Tensor in(c.in_extents), out(c.out_extents);
    fill(in.data);
    auto call = [&](PKind k) {
        if (int err =
                lpnorm_tune_kernel(&in.buf, k.kind, k.p, 0, 0, c.k[0], c.k[1], c.k[2], c.s[0],
                                   c.s[1], c.s[2], c.dil[0], c.dil[1], c.dil[2], c.pad[0], c.pad[1],
                                   c.pad[2], c.pad[0], c.pad[1], c.pad[2], &out.buf)) {
            fail("kernel returned " + std::to_string(err) + " on " + text + ": " + g_halide_error);
        }
    };
    return check_and_time(
        text, in.data, out.data, call, [&](PKind k) { return reference(c, in.data, k); }, kKinds,
        kTimed, 2e-5, opt);
}
#endif

// What the tuned file's provenance header names as the machine.
std::string cpu_model() {
    std::ifstream info("/proc/cpuinfo");
    std::string line;
    while (std::getline(info, line)) {
        for (const char *key : {"model name", "Hardware", "Model"}) {
            if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos) {
                std::string v = line.substr(line.find(':') + 1);
                v.erase(0, v.find_first_not_of(" \t"));
                std::string clean;
                for (char ch : v) clean += ch == '"' || ch == '\\' ? ' ' : ch;
                return clean;
            }
        }
    }
    return "unknown";
}

}  // namespace

int main(int argc, char **argv) {
    Options opt;
    std::vector<std::string> cases;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) fail(a + " needs a value");
            return argv[++i];
        };
        if (a == "--threads")
            opt.threads = std::atoi(value().c_str());
        else if (a == "--min-sample-seconds")
            opt.min_sample = std::atof(value().c_str());
        else if (a == "--samples")
            opt.samples = std::atoi(value().c_str());
        else if (a == "--max-samples")
            opt.max_samples = std::atoi(value().c_str());
        else if (a == "--no-time")
            opt.time = false;
        else if (a == "--probe")
            opt.probe = true;
        else if (a == "--max-p-kind")
            opt.max_p_kind = std::atoi(value().c_str());
        else if (a.rfind("--", 0) == 0)
            fail("unknown flag " + a);
        else
            cases.push_back(a);
    }
    opt.max_samples = std::max(opt.max_samples, std::max(opt.samples, 3));
    halide_set_num_threads(opt.threads);
    lpnorm::rt::set_pool_threads(opt.threads);
    halide_set_custom_do_par_for(lpnorm::rt::pool_do_par_for);
    halide_set_error_handler(record_error);
    std::printf("{\"cpu\": \"%s\", \"threads\": %d, \"cases\": [", cpu_model().c_str(),
                opt.threads);
    for (size_t i = 0; i < cases.size(); i++) {
        std::printf("%s%s", i ? ", " : "", run_case(cases[i], opt).c_str());
        std::fflush(stdout);
    }
    std::printf("]}\n");
    return 0;
}
