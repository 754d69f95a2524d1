#include "test_util.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace lpnorm::test {
namespace {

uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int64_t offset_of(const Tensor &t, const std::vector<int64_t> &index) {
    int64_t off = 0;
    for (int i = 0; i < t.rank; ++i) off += index[i] * t.strides[i];
    return off;
}

}  // namespace

long double Array::get(const std::vector<int64_t> &index) const {
    const auto *p = static_cast<const unsigned char *>(t.data);
    return ref::load(t.dtype, p + offset_of(t, index) * static_cast<int64_t>(dtype_size(t.dtype)));
}

void Array::set(const std::vector<int64_t> &index, long double value) {
    auto *p = static_cast<unsigned char *>(t.data);
    ref::store(t.dtype, p + offset_of(t, index) * static_cast<int64_t>(dtype_size(t.dtype)), value);
}

long double Array::at(int64_t i) const {
    return ref::load(t.dtype, storage.data() + i * dtype_size(t.dtype));
}

void Array::set_at(int64_t i, long double value) {
    ref::store(t.dtype, storage.data() + i * dtype_size(t.dtype), value);
}

Array make_array(DType dtype, const std::vector<int64_t> &shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
        strides[i] = strides[i + 1] * std::max<int64_t>(shape[i + 1], 1);
    return make_strided(dtype, shape, strides);
}

Array make_strided(DType dtype, const std::vector<int64_t> &shape,
                   const std::vector<int64_t> &strides) {
    Array a;
    int64_t lo = 0, hi = 0;  // element offsets spanned by the view
    bool empty = false;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0) empty = true;
        const int64_t reach = (shape[i] - 1) * strides[i];
        (reach < 0 ? lo : hi) += reach;
    }
    a.storage_elements = empty ? 1 : hi - lo + 1;
    a.storage.assign(static_cast<size_t>(a.storage_elements) * dtype_size(dtype), 0);
    a.t = Tensor::strided(
        a.storage.data() + (empty ? 0 : -lo) * static_cast<int64_t>(dtype_size(dtype)), dtype,
        shape, strides);
    return a;
}

Array make_from(DType dtype, const std::vector<int64_t> &shape,
                const std::vector<long double> &values) {
    Array a = make_array(dtype, shape);
    for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < a.storage_elements; ++i)
        a.set_at(static_cast<int64_t>(i), values[i]);
    return a;
}

void fill_random(Array *a, uint64_t seed) {
    uint64_t state = seed * 0x2545f4914f6cdd1dull + 1;
    const DType d = a->t.dtype;
    for (int64_t i = 0; i < a->storage_elements; ++i) {
        const uint64_t r = splitmix(&state);
        long double v = 0;
        if (r % 100 < 15) {
            v = 0;
        } else if (is_floating(d)) {
            v = (static_cast<long double>(r >> 11) / 9007199254740992.0L) * 16 - 8;
        } else if (d == DType::uint8 || d == DType::uint16 || d == DType::uint32 ||
                   d == DType::uint64) {
            v = static_cast<long double>((r >> 8) % 201);
        } else {
            v = static_cast<long double>(static_cast<int64_t>((r >> 8) % 201) - 100);
        }
        a->set_at(i, v);
    }
}

void fill_bytes(Array *a, unsigned char byte) {
    std::memset(a->storage.data(), byte, a->storage.size());
}

const std::vector<DType> &all_dtypes() {
    static const std::vector<DType> v = {DType::float32, DType::float16, DType::bfloat16,
                                         DType::float64, DType::int8,    DType::uint8,
                                         DType::int16,   DType::uint16,  DType::int32,
                                         DType::uint32,  DType::int64,   DType::uint64};
    return v;
}

const std::vector<double> &p_classes() {
    static const std::vector<double> v = {1, 2, 3, 2.5, 0.5, HUGE_VAL, -HUGE_VAL, 0};
    return v;
}

std::string shape_string(const std::vector<int64_t> &shape) {
    std::ostringstream s;
    s << '[';
    for (size_t i = 0; i < shape.size(); ++i) s << (i ? "," : "") << shape[i];
    s << ']';
    return s.str();
}

const char *pattern_name(testing::Pattern p) {
    switch (p) {
    case testing::Pattern::all: return "all";
    case testing::Pattern::inner: return "inner";
    case testing::Pattern::outer: return "outer";
    case testing::Pattern::middle: return "middle";
    case testing::Pattern::general: return "general";
    case testing::Pattern::automatic: return "automatic";
    }
    return "?";
}

std::string describe(const Tensor &t, const ReduceParams &params) {
    std::ostringstream s;
    s << dtype_name(t.dtype) << " shape=" << shape_string(t.shape_vector()) << " strides="
      << shape_string(
             std::vector<int64_t>(t.strides, t.strides + std::max(0, std::min(t.rank, kMaxRank))))
      << " axes=" << shape_string(params.axes) << " p=" << params.p
      << " keep_dims=" << params.keep_dims << " empty_axes=" << static_cast<int>(params.empty_axes)
      << " isa=" << isa_name(active_isa());
    return s.str();
}

ReduceParams params(std::vector<int64_t> axes, double p, bool keep_dims, EmptyAxes empty) {
    ReduceParams r;
    r.axes = std::move(axes);
    r.p = p;
    r.keep_dims = keep_dims;
    r.empty_axes = empty;
    return r;
}

BackendStatus backend_status(Backend backend) {
    for (const BackendStatus &b : backends()) {
        if (b.backend == backend) return b;
    }
    ADD_FAILURE() << "backends() lacks " << backend_name(backend);
    return BackendStatus{backend, false, false, ""};
}

bool backend_lacks_dtype(DType dtype, const std::string &op) {
    const Backend backend = backend_override();
    if (backend == Backend::auto_select || backend == Backend::cpu) return false;
    for (const VariantInfo &v : compiled_variants()) {
        if (v.backend == backend && v.op == op && v.dtype == dtype) return false;
    }
    return true;
}

Array run_reduce(const Tensor &input, const ReduceParams &params, Status *status) {
    std::vector<int64_t> shape;
    *status = reduce_output_shape(input.shape_vector(), params, &shape);
    Array out = make_array(input.dtype, shape);
    fill_bytes(&out, 0xA5);
    if (status->ok()) *status = reduce(input, out.t, params);
    return out;
}

::testing::AssertionResult check_reduce(const Tensor &input, const ReduceParams &params,
                                        testing::Pattern pattern) {
    const ref::Result expected = ref::reduce(input, params);
    if (!expected.ok)
        return ::testing::AssertionFailure()
               << "reference rejects " << describe(input, params) << ": " << expected.error;

    std::vector<int64_t> shape;
    const Status shape_status = reduce_output_shape(input.shape_vector(), params, &shape);
    if (!shape_status.ok() || shape != expected.shape)
        return ::testing::AssertionFailure()
               << describe(input, params) << ": reduce_output_shape gives " << shape_string(shape)
               << " (" << shape_status.message() << "), expected " << shape_string(expected.shape);

    Array out = make_array(input.dtype, expected.shape);
    fill_bytes(&out, 0xA5);
    const Status s = reduce(input, out.t, params);
    if (s.code() == ErrorCode::unsupported && backend_lacks_dtype(input.dtype, "reduce"))
        return ::testing::AssertionSuccess();  // the documented answer of a GPU backend
    if (!s.ok())
        return ::testing::AssertionFailure() << describe(input, params) << ": "
                                             << error_code_name(s.code()) << ": " << s.message();
    if (pattern != testing::Pattern::automatic && testing::last_pattern() != pattern)
        return ::testing::AssertionFailure()
               << describe(input, params) << ": forced pattern " << pattern_name(pattern)
               << " but dispatched to " << pattern_name(testing::last_pattern());

    const int64_t n = static_cast<int64_t>(expected.values.size());
    // The CPU's inner kernels may sum float32 in float32 blocks (ref::allowed_range).
    const Backend backend = backend_override();
    const bool blocks = testing::last_pattern() == testing::Pattern::inner &&
                        (backend == Backend::auto_select || backend == Backend::cpu);
    int bad = 0;
    std::ostringstream msg;
    msg.precision(21);
    for (int64_t i = 0; i < n; ++i) {
        const long double got = out.at(i);
        const ref::Value &e = expected.values[static_cast<size_t>(i)];
        if (ref::matches(input.dtype, params.p, e, got, false, blocks)) continue;
        if (bad++ < 4) {
            const ref::Range r = ref::allowed_range(input.dtype, params.p, e, false, blocks);
            msg << "\n  out[" << i << "] = " << got << ", exact " << e.value << " over " << e.n
                << " elements, allowed ";
            if (r.nan)
                msg << "NaN";
            else
                msg << "[" << r.lo << ", " << r.hi << "]";
        }
    }
    if (bad)
        return ::testing::AssertionFailure()
               << describe(input, params) << " pattern=" << pattern_name(testing::last_pattern())
               << ": " << bad << " of " << n << " outputs wrong" << msg.str();
    return ::testing::AssertionSuccess();
}

bool running_emulated() {
    static const bool emulated = std::getenv("LPNORM_TEST_EMULATED") != nullptr;
    return emulated;
}

bool skipped_under_emulation(size_t case_index, size_t share, size_t offset) {
    return running_emulated() && share > 1 && (case_index + offset) % share != 0;
}

const std::vector<Isa> &all_isas() {
    static const std::vector<Isa> isas = {Isa::sse41,       Isa::avx2, Isa::avx512,
                                          Isa::avx512_zen5, Isa::neon, Isa::neon_fp16};
    return isas;
}

bool force_isa_for(Isa isa, const char *op, DType dtype, std::string *why) {
    bool has_kernel = false;
    for (const VariantInfo &v : compiled_variants()) {
        has_kernel = has_kernel || (v.isa == isa && v.op == op && v.dtype == dtype);
    }
    if (cpu_supports(isa) && !has_kernel) {
        *why = std::string(isa_name(isa)) + " has no " + dtype_name(dtype) + " " + op +
               " kernels in this build (they fall back to another ISA's)";
        return false;
    }
    return force_isa(isa, why);
}

bool force_isa(Isa isa, std::string *why) {
    if (!cpu_supports(isa)) {
        *why = std::string("this CPU cannot run ") + isa_name(isa) + " kernels";
        return false;
    }
    const Status s = set_isa(isa);
    if (s.code() == ErrorCode::unsupported) {
        *why = std::string(isa_name(isa)) + " not available: " + s.message();
        return false;
    }
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(active_isa(), isa);
    return s.ok() && active_isa() == isa;
}

}  // namespace lpnorm::test

namespace lpnorm::test {
namespace {

// With LPNORM_BACKEND naming a GPU backend that cannot run here (no driver or device), every
// test of the run skips, saying why, instead of failing on each call.
class GpuBackendEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        const Backend chosen = backend_override();
        if (chosen == Backend::auto_select || chosen == Backend::cpu) return;
        const BackendStatus b = backend_status(chosen);
        if (!b.usable) {
            GTEST_SKIP() << "LPNORM_BACKEND=" << backend_name(chosen)
                         << " cannot run here: " << b.detail;
        }
    }
};

[[maybe_unused]] ::testing::Environment *const g_gpu_environment =
    ::testing::AddGlobalTestEnvironment(new GpuBackendEnvironment);

}  // namespace
std::string describe_pool(const Tensor &x, const PoolParams &p) {
    std::ostringstream s;
    s << dtype_name(x.dtype) << " " << shape_string(x.shape_vector()) << " strides "
      << shape_string(std::vector<int64_t>(x.strides, x.strides + x.rank)) << " kernel "
      << shape_string(p.kernel) << " strides " << shape_string(p.strides) << " dilations "
      << shape_string(p.dilations) << " pads " << shape_string(p.pads) << " auto_pad "
      << int(p.auto_pad) << " ceil " << p.ceil_mode << " p " << p.p << " mode " << int(p.mode)
      << " overhang " << int(p.overhang);
    return s.str();
}

PoolParams window(std::vector<int64_t> kernel, std::vector<int64_t> strides,
                  std::vector<int64_t> pads, std::vector<int64_t> dilations, bool ceil_mode,
                  AutoPad auto_pad) {
    PoolParams p;
    p.kernel = std::move(kernel);
    p.strides = std::move(strides);
    p.pads = std::move(pads);
    p.dilations = std::move(dilations);
    p.ceil_mode = ceil_mode;
    p.auto_pad = auto_pad;
    return p;
}

}  // namespace lpnorm::test
