// lpnorm: Lp-norm reductions and Lp pooling backed by Halide AOT kernels.
//
// Every entry point validates its arguments first. On bad input it returns a Status whose
// message names the argument and its value, and it writes nothing to the output.
// Nothing in the library aborts the process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lpnorm/tensor.h"

namespace lpnorm {

enum class ErrorCode : int {
    ok = 0,
    invalid_argument = 1,  // a bad attribute value (axes, p, policy, ...)
    shape_mismatch = 2,    // output shape differs from the computed one
    dtype_mismatch = 3,    // output dtype differs from the input dtype
    null_pointer = 4,      // null data with a non-zero size
    too_large = 5,         // sizes overflow, or exceed what the kernels index
    aliasing = 6,          // input and output memory overlap
    unsupported = 7,       // valid request that this build cannot run (e.g. ISA not compiled)
    internal = 8,          // a kernel reported an error (a bug: please report it)
};

class Status {
public:
    Status() = default;
    Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
    static Status Ok() { return Status(); }

    bool ok() const { return code_ == ErrorCode::ok; }
    ErrorCode code() const { return code_; }
    const std::string &message() const { return message_; }

private:
    ErrorCode code_ = ErrorCode::ok;
    std::string message_;
};

const char *error_code_name(ErrorCode code);

// What an empty `axes` list means. The ecosystems disagree, so the caller chooses.
enum class EmptyAxes : int {
    identity = 0,     // OpenVINO ReduceL1/L2-4: y = x
    reduce_all = 1,   // ONNX default (noop_with_empty_axes = 0): reduce over every axis
    elementwise = 2,  // ONNX-18 noop_with_empty_axes = 1: y = |x|, whatever p is
};

struct ReduceParams {
    // Axes to reduce, each in [-rank, rank-1]; duplicates are an error.
    std::vector<int64_t> axes;
    // Norm order: any real p > 0, +inf (max |x|), -inf (min |x|) or 0 (count of non-zeros).
    double p = 2.0;
    // Keep reduced dimensions as size 1.
    bool keep_dims = false;
    EmptyAxes empty_axes = EmptyAxes::reduce_all;
};

// y = (sum over the reduced axes of |x|^p)^(1/p).
//
// Accumulation: float16/bfloat16 in float32, float32 and float64 in float64 (float32 rows of
// the CPU's contiguous pattern add partial sums of 8 terms in float32 first: docs/semantics.md
// has the bounds), integers in float64 with the root taken in float64, then truncated toward
// zero and saturated to the output type. Reductions over an empty set give 0 for every p. NaN
// propagates; +-inf gives inf (p = -inf gives min |x|; p = 0 counts elements != 0, NaN included).
// Output: dense row-major, dtype equal to the input's, shape from reduce_output_shape().
Status reduce(const Tensor &input, const Tensor &output, const ReduceParams &params);

// The output shape reduce() expects for `input_shape`, or the error reduce() would report.
Status reduce_output_shape(const std::vector<int64_t> &input_shape, const ReduceParams &params,
                           std::vector<int64_t> *output_shape);

// The gradient of reduce(): input_grad = output_grad * d reduce(input) / d input, as PyTorch's
// autograd of torch.linalg.vector_norm gives it, from the forward's input and output and the
// gradient of the output (output and output_grad of reduce_output_shape(), the same params).
// With s = sgn(x) (0 for 0 and NaN) and t = |x| / y:
//   p = 1: s dy;  p = 2: (x / y) dy, 0 where y = 0;  other p > 0: s t^(p-1) dy, 0 where y = 0
//   or x = 0;  p = 0: 0;  p = +-inf: dy shared equally among the elements of the group whose
//   |x| is y (NaN elements count among them), times s.
// Empty axes: `identity` gives dy, `elementwise` s dy, `reduce_all` the gradient over every
// axis. The powers are of t (at most 1 for the y of reduce()), so no step overflows where the
// norm does not. dtypes float32, float64, float16 and bfloat16, computed in float32 (float64
// for float64) and rounded once. Host or device tensors, on the backend the forward would
// choose. input_grad: dense row-major, input's shape and dtype; it must not overlap the other
// tensors.
Status reduce_backward(const Tensor &input, const Tensor &output, const Tensor &output_grad,
                       const Tensor &input_grad, const ReduceParams &params);

// ---- Lp pooling ----------------------------------------------------------------------------

// How the padding is chosen (ONNX auto_pad).
enum class AutoPad : int {
    notset = 0,      // the explicit `pads`
    same_upper = 1,  // output = ceil(in / stride); an odd total pad puts the extra pixel at the end
    same_lower = 2,  // as same_upper, extra pixel at the start
    valid = 3,       // no padding
};

// What is raised to the power p.
enum class PoolMode : int {
    abs = 0,         // |x|^p (ONNX, ONNX Runtime, OpenVINO, DirectML)
    signed_pow = 1,  // x^p without |.| (PyTorch lp_pool), then the sum's 1/p-th power, each as
                     // IEEE pow: a negative base keeps its sign for an odd integer exponent,
                     // loses it for an even one and gives NaN for any other, -inf giving +inf
                     // (so a negative window sum gives NaN unless 1/p is an integer); the
                     // term of p = 0.5 is PyTorch's sqrt, NaN for -inf too
};

// Windows that run past the input under ceil_mode (or over padding).
enum class Overhang : int {
    sum = 0,      // the plain sum over the in-bounds taps (ONNX Runtime; the spec text)
    rescale = 1,  // that sum times K / n, n = taps inside input + pads (PyTorch, ONNX reference)
};

struct PoolParams {
    // Window size per spatial dim (1, 2 or 3 dims), each >= 1.
    std::vector<int64_t> kernel;
    // Per spatial dim, each >= 1; empty means all 1.
    std::vector<int64_t> strides;
    // Per spatial dim, each >= 1; empty means all 1.
    std::vector<int64_t> dilations;
    // Empty (all 0) or 2 * spatial values, ONNX order: all begins, then all ends; each >= 0.
    // Only used with AutoPad::notset.
    std::vector<int64_t> pads;
    AutoPad auto_pad = AutoPad::notset;
    // Output size by ceiling instead of floor; a last window that would start at or after
    // in + pad_begin is dropped (ONNX opset 22, PyTorch, ONNX Runtime).
    bool ceil_mode = false;
    // Any finite real p > 0. Integer p up to 64 raise x by products (pow per element only
    // for other p); p = 1, 2, 3, 4 also take the root without pow.
    double p = 2.0;
    PoolMode mode = PoolMode::abs;
    Overhang overhang = Overhang::sum;
};

// The resolved window geometry of one spatial dim.
struct PoolAxis {
    int64_t input = 0, output = 0, kernel = 1, stride = 1, dilation = 1;
    int64_t pad_begin = 0, pad_end = 0;
};

// y[n, c, o...] = (sum over the taps t of the window of o that fall inside the input of
// |x[n, c, t]|^p)^(1/p); taps in the padding contribute 0.
//
// Layout N, C, D1..Dk with k = params.kernel.size() in {1, 2, 3}: input rank k + 2. Strides
// are free, so a channels-last tensor is passed as a strided view. dtypes float32, float64,
// float16 and bfloat16 (the last two computed in float32). Output: dense row-major, same
// dtype, shape from pool_output_shape().
Status pool(const Tensor &input, const Tensor &output, const PoolParams &params);

// The output shape pool() expects for `input_shape`, or the error pool() would report.
Status pool_output_shape(const std::vector<int64_t> &input_shape, const PoolParams &params,
                         std::vector<int64_t> *output_shape);

// The resolved geometry (pads after auto_pad, output sizes) per spatial dim.
Status pool_geometry(const std::vector<int64_t> &input_shape, const PoolParams &params,
                     std::vector<PoolAxis> *axes);

// The gradient of pool(): input_grad = output_grad * d pool(input) / d input, from the forward's
// input, its output and the gradient of the output (both of pool_output_shape(), any strides),
// with the same params. A gather: each element sums, over the windows that read it, with r its
// ratio x / y to the window's output and F the window's rescale factor (1 for Overhang::sum),
//   abs:        F sgn(x) |r|^(p-1) output_grad    (p = 1: F sgn(x) output_grad)
//   signed_pow: F r^(p-1) output_grad, r^(p-1) as IEEE pow (PyTorch's x^(p-1) / y^(p-1))
// A window whose output is 0 contributes 0, and so does x = 0 for p < 1 (PyTorch gives NaN
// there: the root's slope at 0 is infinite). |r| <= 1 in the abs mode, so nothing overflows
// where input_grad does not. dtypes float32, float64, float16 and bfloat16, computed in float32
// (float64 for float64) and rounded once; CPU tensors. input_grad: dense row-major, input's
// shape and dtype; it must not overlap output or output_grad.
Status pool_backward(const Tensor &input, const Tensor &output, const Tensor &output_grad,
                     const Tensor &input_grad, const PoolParams &params);

// ---- Lp normalization ----------------------------------------------------------------------

// How eps enters y = x / n, n = (S)^(1/p), S = sum over the group of |x|^p. The ecosystems
// disagree, so the caller chooses.
enum class EpsMode : int {
    none = 0,      // y = x / n, and 0 where n == 0 (ONNX LpNormalization)
    norm_max = 1,  // y = x / max(n, eps) (PyTorch F.normalize, DirectML)
    sum_add = 2,   // y = x / (S + eps)^(1/p) (OpenVINO NormalizeL2 eps_mode=add)
    sum_max = 3,   // y = x / max(S, eps)^(1/p) (OpenVINO NormalizeL2 eps_mode=max)
};

struct NormalizeParams {
    // The axes of each group, each in [-rank, rank-1]; duplicates are an error. Empty: every
    // element is its own group (n = |x|).
    std::vector<int64_t> axes = {-1};
    // Any real p > 0, or +inf (n = max |x|; not with sum_add or sum_max).
    double p = 2.0;
    // A finite eps >= 0, read by the eps modes only.
    double eps = 0.0;
    EpsMode eps_mode = EpsMode::none;
};

// y = x / n over groups along params.axes (n broadcast back over them), as EpsMode says.
//
// dtypes float32, float64, float16 and bfloat16; terms and sums in float64 for float32 and
// float64, in float32 for the 16-bit types, where eps is taken too (never rounded to the input
// dtype). Every finite input gives the normalized values as if the sums had no range limit: a
// group whose powers could over- or underflow is scaled by a power of two first. NaN in a group
// makes it all NaN; with +-inf in a group (no NaN), the finite elements give +-0 and the
// infinite ones NaN. An all-zero group gives zeros in every mode, except with eps = 0 in the
// eps modes (0 / 0 = NaN, as PyTorch). Output: dense row-major, the input's shape and dtype.
Status normalize(const Tensor &input, const Tensor &output, const NormalizeParams &params);

// The output shape normalize() expects (the input's), or the error it would report for the
// attributes.
Status normalize_output_shape(const std::vector<int64_t> &input_shape,
                              const NormalizeParams &params, std::vector<int64_t> *output_shape);

// The gradient of normalize(): input_grad = output_grad * d normalize(input) / d input, from the
// forward's input and the gradient of its output (the input's shape), with the same params, as
// PyTorch's autograd of x / max(norm, eps) and OpenVINO's formulas give it. With y the
// forward's output, d its denominator and c the sum over the group of output_grad * y:
//   input_grad = (output_grad - g c) / d,  g = d d / d x = sgn(x) |y|^(p-1) where d follows the
// norm (p = inf: shared by the elements whose |x| is the max, as reduce_backward), 0 where eps
// clamps it (norm_max below eps, sum_max below eps). An all-zero group gives 0 with eps_mode
// none. Overflow-safe as the forward (every factor a ratio of the group's own values). Host or
// device tensors, on the backend the forward would choose; input_grad dense, not overlapping
// output_grad.
Status normalize_backward(const Tensor &input, const Tensor &output_grad, const Tensor &input_grad,
                          const NormalizeParams &params);

const char *eps_mode_name(EpsMode mode);
bool parse_eps_mode(const char *name, EpsMode *out);

// ---- Instruction sets and threads -------------------------------------------------------

// x86-64 builds compile the sse41, avx2 and avx512 variants, and avx512_zen5: avx512's
// instructions scheduled for AMD Zen 5, only the kernels tuned differently there (float32
// reductions over the innermost axes; other kernels run avx512's). ARM64 builds (Linux,
// Android) compile neon (ARMv8.0-A Advanced SIMD, every kernel) and neon_fp16 (ARMv8.2-A
// half-precision arithmetic, the float16 kernels only; other dtypes run their neon kernels).
enum class Isa : int {
    auto_detect = 0,
    sse41 = 1,
    avx2 = 2,
    avx512 = 3,
    neon = 4,
    neon_fp16 = 5,
    avx512_zen5 = 6,
};

const char *isa_name(Isa isa);
bool parse_isa(const char *name, Isa *out);

// Best ISA the CPU and OS support (x86: CPUID plus XCR0 state; ARM64: the kernel's HWCAP)
// among the compiled ones; avx512_zen5 only on AMD family 1Ah (Zen 5) and later.
Isa detected_isa();
// ISA used for the next calls: the override if set (set_isa or LPNORM_ISA), else detected.
Isa active_isa();
// Forces an ISA (Isa::auto_detect clears the override). Fails with `unsupported` when the
// CPU cannot run it or it was not compiled.
Status set_isa(Isa isa);
// True when this CPU/OS can run kernels of `isa` (avx512_zen5: any CPU that runs avx512).
bool cpu_supports(Isa isa);

// Threads a kernel's parallel loop runs on, the caller's included (0 = one per core). Work
// below a kernel's thread threshold runs on the calling thread alone: reductions of fewer
// than 8192 to 262144 input elements (per pattern and ISA), pooling of fewer than 16384
// output elements.
void set_num_threads(int num_threads);
int num_threads();

// An engine's own threads for lpnorm's parallel loops, so that kernels called from inside the
// engine do not compete with its workers for the cores. `parallel_for(pool, count, task,
// context)` must call task(context, i) exactly once for every i in [0, count), on any of its
// threads (the caller's included), and return when all have returned; `pool` is passed
// through. Loops then ignore set_num_threads: the engine decides. nullptr restores lpnorm's
// own pool. Process-wide; set it before calls run, not during them.
using ParallelFor = void (*)(void *pool, int count, void (*task)(void *context, int index),
                             void *context);
void set_parallel_for(ParallelFor parallel_for, void *pool);

// ---- Backends and device memory ----------------------------------------------------------

// Where kernels run: `cpu` runs the ISA variants above; a GPU backend runs the kernels compiled
// for that API (CMake option LPNORM_GPU_BACKENDS: opencl and cuda on x86-64 Linux, d3d12 on
// x86-64 Windows). GPU kernels take tensors of up to 2^31 - 1 elements per dim and stride, and
// no partial chunks: larger ones get `too_large` (use cpu). d3d12 has the reductions and the
// pooling of float32 and float16 (docs/targets.md, "D3D12 compute"); its other calls get
// `unsupported`.
enum class Backend : int { auto_select = 0, cpu = 1, opencl = 2, cuda = 3, d3d12 = 4 };

const char *backend_name(Backend backend);
bool parse_backend(const char *name, Backend *out);

// The backend of the next calls. auto_select (the default) runs where the tensors live: host
// memory on the CPU, Memory::cuda on CUDA, Memory::opencl on OpenCL, Memory::d3d12 on D3D12. A
// GPU backend set here also takes host tensors, copying the input in and the output back. Input
// and output must live in the same memory. LPNORM_BACKEND=cpu|opencl|cuda|d3d12 sets it when
// the library starts.
// Fails with `unsupported` when `backend` was not compiled.
Status set_backend(Backend backend);
Backend backend_override();

struct BackendStatus {
    Backend backend;
    bool compiled;       // kernels for it are in this build
    bool usable;         // its driver loaded and a device answered (probed once per process)
    std::string detail;  // why not usable, or the API's name
};

// cpu, opencl, cuda and d3d12, in that order.
std::vector<BackendStatus> backends();

// The context (and OpenCL command queue) lpnorm's GPU kernels run in, created on first use:
// allocate Memory::cuda, Memory::opencl and Memory::d3d12 tensors there. cuda: *context is a
// CUcontext and *queue is null (the default stream); opencl: a cl_context and a
// cl_command_queue; d3d12: an ID3D12Device and an ID3D12CommandQueue. Every call returns after
// its kernels finished. Fails with `unsupported` when the backend is not usable.
Status gpu_context(Backend backend, void **context, void **queue);

// ---- Introspection -----------------------------------------------------------------------

struct VariantInfo {
    std::string op;       // "reduce", "partial" (partial sums of a split reduction), "pool",
                          // "normalize", "reduce_backward", "normalize_backward" or
                          // "pool_backward"
    std::string pattern;  // reduce: "all", "inner", "outer", "middle", "general";
                          // partial: "all", "general"; pool: "1d", "2d", "2d_channels",
                          // "2d_direct", "2d_flat", "3d";
                          // normalize and the grouped gradients: "inner", "middle";
                          // pool_backward: "1d", "2d", "3d" and, for p = 1 to 4 (p = 1
                          // only in float64), "1d_separable", "2d_separable", "3d_separable"
    std::string reducer;  // reduce: "sum" (p in (0, inf) and p = 0) or "extreme" (p = +-inf);
                          // pool, normalize and the gradients: "sum"
    DType dtype;
    Isa isa;               // auto_detect for GPU kernels
    std::string function;  // the Halide function's symbol
    Backend backend = Backend::cpu;
};

std::vector<VariantInfo> compiled_variants();
const char *version();

}  // namespace lpnorm
