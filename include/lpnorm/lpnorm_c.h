/* lpnorm C ABI. Every function returns LPNORM_OK (0) or an error code; on error the output
 * is untouched and lpnorm_last_error() returns a message for the calling thread. */
#ifndef LPNORM_C_H
#define LPNORM_C_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lpnorm_status {
    LPNORM_OK = 0,
    LPNORM_INVALID_ARGUMENT = 1,
    LPNORM_SHAPE_MISMATCH = 2,
    LPNORM_DTYPE_MISMATCH = 3,
    LPNORM_NULL_POINTER = 4,
    LPNORM_TOO_LARGE = 5,
    LPNORM_ALIASING = 6,
    LPNORM_UNSUPPORTED = 7,
    LPNORM_INTERNAL = 8
} lpnorm_status;

typedef enum lpnorm_dtype {
    LPNORM_FLOAT32 = 0,
    LPNORM_FLOAT16 = 1,
    LPNORM_BFLOAT16 = 2,
    LPNORM_FLOAT64 = 3,
    LPNORM_INT8 = 4,
    LPNORM_UINT8 = 5,
    LPNORM_INT16 = 6,
    LPNORM_UINT16 = 7,
    LPNORM_INT32 = 8,
    LPNORM_UINT32 = 9,
    LPNORM_INT64 = 10,
    LPNORM_UINT64 = 11
} lpnorm_dtype;

typedef enum lpnorm_empty_axes {
    LPNORM_EMPTY_AXES_IDENTITY = 0,
    LPNORM_EMPTY_AXES_REDUCE_ALL = 1,
    LPNORM_EMPTY_AXES_ELEMENTWISE = 2
} lpnorm_empty_axes;

/* Where a tensor's elements live ("Backends and device memory" in lpnorm.h). */
typedef enum lpnorm_memory {
    LPNORM_MEMORY_HOST = 0,   /* `data` is a CPU pointer */
    LPNORM_MEMORY_CUDA = 1,   /* a CUdeviceptr (cast to void *) in lpnorm's CUDA context */
    LPNORM_MEMORY_OPENCL = 2, /* a cl_mem of lpnorm's OpenCL context */
    LPNORM_MEMORY_D3D12 = 3   /* an ID3D12Resource * (a buffer) on lpnorm's D3D12 device */
} lpnorm_memory;

/* A view of caller memory. `strides` (in elements) may be NULL for dense row-major. A tensor
 * initialised without `memory` ({data, dtype, rank, shape, strides}) is in host memory. */
typedef struct lpnorm_tensor {
    void *data;
    int32_t dtype; /* an lpnorm_dtype */
    int32_t rank;
    const int64_t *shape;
    const int64_t *strides;
    int32_t memory; /* an lpnorm_memory */
} lpnorm_tensor;

/* y = (sum over axes of |x|^p)^(1/p); see lpnorm.h for the full contract. */
int lpnorm_reduce(const lpnorm_tensor *input, const lpnorm_tensor *output, const int64_t *axes,
                  int32_t num_axes, double p, int32_t keep_dims, int32_t empty_axes);

/* The gradient of lpnorm_reduce with the same attributes: input_grad from the forward's input,
 * its output and output_grad (the gradient of the output); see lpnorm::reduce_backward. */
int lpnorm_reduce_backward(const lpnorm_tensor *input, const lpnorm_tensor *output,
                           const lpnorm_tensor *output_grad, const lpnorm_tensor *input_grad,
                           const int64_t *axes, int32_t num_axes, double p, int32_t keep_dims,
                           int32_t empty_axes);

/* Writes the output rank and shape (up to 8 values) reduce expects. */
int lpnorm_reduce_output_shape(int32_t rank, const int64_t *shape, const int64_t *axes,
                               int32_t num_axes, int32_t keep_dims, int32_t empty_axes,
                               int32_t *out_rank, int64_t *out_shape);

typedef enum lpnorm_auto_pad {
    LPNORM_AUTO_PAD_NOTSET = 0,
    LPNORM_AUTO_PAD_SAME_UPPER = 1,
    LPNORM_AUTO_PAD_SAME_LOWER = 2,
    LPNORM_AUTO_PAD_VALID = 3
} lpnorm_auto_pad;

typedef enum lpnorm_pool_mode { LPNORM_POOL_ABS = 0, LPNORM_POOL_SIGNED_POW = 1 } lpnorm_pool_mode;

typedef enum lpnorm_overhang {
    LPNORM_OVERHANG_SUM = 0,
    LPNORM_OVERHANG_RESCALE = 1
} lpnorm_overhang;

/* Lp pooling attributes; see lpnorm::PoolParams in lpnorm.h. Array fields hold
 * `spatial_dims` values (pads: 2 * spatial_dims, all begins then all ends); NULL strides or
 * dilations mean all 1, NULL pads mean all 0. */
typedef struct lpnorm_pool_params {
    int32_t spatial_dims; /* 1, 2 or 3 */
    const int64_t *kernel;
    const int64_t *strides;
    const int64_t *dilations;
    const int64_t *pads;
    int32_t auto_pad;  /* an lpnorm_auto_pad */
    int32_t ceil_mode; /* 0 or 1 */
    double p;
    int32_t mode;     /* an lpnorm_pool_mode */
    int32_t overhang; /* an lpnorm_overhang */
} lpnorm_pool_params;

/* y = (sum over each window's in-bounds taps of |x|^p)^(1/p), layout N, C, D1..Dk. */
int lpnorm_pool(const lpnorm_tensor *input, const lpnorm_tensor *output,
                const lpnorm_pool_params *params);

/* The gradient of lpnorm_pool: input_grad from the forward's input, its output and
 * output_grad (the gradient of the output); see lpnorm::pool_backward. */
int lpnorm_pool_backward(const lpnorm_tensor *input, const lpnorm_tensor *output,
                         const lpnorm_tensor *output_grad, const lpnorm_tensor *input_grad,
                         const lpnorm_pool_params *params);

/* Writes the output rank and shape (up to 8 values) pool expects. */
int lpnorm_pool_output_shape(int32_t rank, const int64_t *shape, const lpnorm_pool_params *params,
                             int32_t *out_rank, int64_t *out_shape);

typedef enum lpnorm_eps_mode {
    LPNORM_EPS_NONE = 0,
    LPNORM_EPS_NORM_MAX = 1,
    LPNORM_EPS_SUM_ADD = 2,
    LPNORM_EPS_SUM_MAX = 3
} lpnorm_eps_mode;

/* y = x / ||x||_p over groups along `axes` (num_axes = 0: each element its own group), eps
 * entering as `eps_mode` (an lpnorm_eps_mode) says; see lpnorm::normalize in lpnorm.h. The
 * output has the input's shape, dense. */
int lpnorm_normalize(const lpnorm_tensor *input, const lpnorm_tensor *output, const int64_t *axes,
                     int32_t num_axes, double p, double eps, int32_t eps_mode);

/* The gradient of lpnorm_normalize with the same attributes: input_grad from the input and
 * output_grad (the gradient of the output); see lpnorm::normalize_backward. */
int lpnorm_normalize_backward(const lpnorm_tensor *input, const lpnorm_tensor *output_grad,
                              const lpnorm_tensor *input_grad, const int64_t *axes,
                              int32_t num_axes, double p, double eps, int32_t eps_mode);

/* Writes the output rank and shape normalize expects (the input's), or the error it reports
 * for the attributes. */
int lpnorm_normalize_output_shape(int32_t rank, const int64_t *shape, const int64_t *axes,
                                  int32_t num_axes, double p, double eps, int32_t eps_mode,
                                  int32_t *out_rank, int64_t *out_shape);

/* The message of this thread's last failed call ("" if none). Valid until the next call. */
const char *lpnorm_last_error(void);

/* "auto", "sse41", "avx2", "avx512", "avx512_zen5", "neon" or "neon_fp16". */
int lpnorm_set_isa(const char *isa);
const char *lpnorm_active_isa(void);
void lpnorm_set_num_threads(int32_t num_threads);
/* lpnorm::set_parallel_for: loops run through parallel_for(pool, count, task, context), which
 * calls task(context, i) once for each i in [0, count) and returns when all have returned;
 * NULL restores lpnorm's own pool. */
void lpnorm_set_parallel_for(void (*parallel_for)(void *pool, int32_t count,
                                                  void (*task)(void *context, int32_t index),
                                                  void *context),
                             void *pool);

/* "auto_select" (run where the tensors live), "cpu", "opencl", "cuda" or "d3d12" (host tensors are
 * copied in and out): lpnorm::set_backend. Fails when the backend is not compiled or not usable
 * here. */
int lpnorm_set_backend(const char *backend);
/* The context (and OpenCL or D3D12 command queue; NULL for CUDA) lpnorm's GPU kernels run in,
 * for allocating LPNORM_MEMORY_CUDA, LPNORM_MEMORY_OPENCL and LPNORM_MEMORY_D3D12 tensors:
 * lpnorm::gpu_context (for D3D12 the ID3D12Device and its ID3D12CommandQueue). */
int lpnorm_gpu_context(const char *backend, void **context, void **queue);
const char *lpnorm_version(void);

#ifdef __cplusplus
}
#endif

#endif /* LPNORM_C_H */
