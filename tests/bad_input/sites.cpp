// Every place in runtime/*.cpp and include/lpnorm/**.h that returns an error status, found by
// reading each file top to bottom (each `Status(ErrorCode::...)` construction and each call of
// a file's error helper, `bad(...)` or `invalid(...)`). The fragment is a string literal of the
// site's message; test_bad_input_table.cpp checks it is still in the file, that each file has
// exactly as many sites as listed here, and that every row's message holds its site's
// fragment. Where several sites share a literal, the row names say which one they reach.
#include "bad_input/table.h"

namespace lpnorm::test::bad_input {

const std::vector<Site> &sites() {
    static const std::vector<Site> s = {
        // runtime/validate.cpp: validate_tensor, normalize_axes, validate_p, validate_output.
        {"validate.rank", "runtime/validate.cpp", "] (or its strides do not match its shape)",
         nullptr},
        {"validate.dtype", "runtime/validate.cpp", " is not a dtype", nullptr},
        {"validate.negative", "runtime/validate.cpp", " is negative", nullptr},
        {"validate.bytes", "runtime/validate.cpp", " has more than 2^63 bytes", nullptr},
        {"validate.reach", "runtime/validate.cpp", " reach beyond 2^63 bytes", nullptr},
        {"validate.null_data", "runtime/validate.cpp", ".data is null but ", nullptr},
        {"validate.axis_range", "runtime/validate.cpp", " is out of range for rank ", nullptr},
        {"validate.axis_repeat", "runtime/validate.cpp", " repeats axes[", nullptr},
        {"validate.p", "runtime/validate.cpp", " is not a norm order: use p > 0, 0, inf or -inf",
         nullptr},
        {"validate.output_dtype", "runtime/validate.cpp", " differs from input.dtype = ", nullptr},
        {"validate.output_shape", "runtime/validate.cpp", " differs from the expected ", nullptr},
        {"validate.output_dense", "runtime/validate.cpp", " are not dense row-major for shape ",
         nullptr},
        {"validate.aliasing", "runtime/validate.cpp", "input and output memory overlap", nullptr},
        {"validate.memory", "runtime/validate.cpp", " is not a Memory", nullptr},
        {"validate.same_cl_mem", "runtime/validate.cpp",
         "input and output are the same OpenCL buffer", nullptr},
        // runtime/reduce.cpp
        {"reduce.empty_axes", "runtime/reduce.cpp", " is not an EmptyAxes policy", nullptr},
        {"reduce.shape_rank", "runtime/validate.cpp", " is outside [0, ", nullptr},
        {"reduce.shape_negative", "runtime/validate.cpp", " is negative", nullptr},
        // runtime/split_reduce.cpp, runtime/canonicalize.cpp, runtime/halide_glue.cpp
        {"reduce.no_kernel", "runtime/split_reduce.cpp", " kernel for dtype ", nullptr},
        {"reduce.accumulators", "runtime/split_reduce.cpp", " accumulators do not fit in memory",
         "an allocation failure of at most 64 MiB (split_limits.cpp bounds the accumulators)"},
        {"canonicalize.32bit", "runtime/canonicalize.cpp", ", beyond the 2^31-1 the kernels index",
         "split_reduce.cpp cuts every dim and stride to 32 bits before canonicalising: a "
         "library bug; test_split_reduce.cpp and test_huge_tensors.cpp cover the split"},
        {"halide.kernel_failure", "runtime/halide_glue.cpp", " failed with Halide error ",
         "a kernel's own failure after validation (a library bug), or the Halide runtime failing "
         "to wrap, copy or sync device memory (a driver error): no input is meant to reach it"},
        // runtime/pool.cpp
        {"pool.dtype", "runtime/pool.cpp",
         " is not pooled: use float32, float64, float16 or bfloat16", nullptr},
        {"pool.no_kernel", "runtime/pool.cpp", "-D pooling kernel for dtype ", nullptr},
        {"pool.widened_copy", "runtime/pool.cpp",
         ": its float64 copy for the signed mode does not fit in memory",
         "an allocation failure copying a signed-mode (odd p) input to float64"},
        // runtime/normalize.cpp
        {"normalize.eps_mode", "runtime/normalize.cpp", " is not an EpsMode", nullptr},
        {"normalize.p", "runtime/normalize.cpp", " is not a normalization order: use p > 0 or inf",
         nullptr},
        {"normalize.eps", "runtime/normalize.cpp", " must be finite and >= 0", nullptr},
        {"normalize.inf_sum", "runtime/normalize.cpp",
         "p = inf has no sum of powers for eps_mode = ", nullptr},
        {"normalize.32bit", "runtime/normalize.cpp", " does not fit the kernels' 32-bit indexing",
         "needs a merged dim or stride beyond 2^31 elements (8 GiB of float32)"},
        {"normalize.no_kernel", "runtime/normalize.cpp", " normalization kernel for dtype ",
         nullptr},
        {"normalize.copies", "runtime/normalize.cpp", ": its reordered copies do not fit in memory",
         "an allocation failure copying an input whose strides merge nowhere"},
        {"normalize.dtype", "runtime/normalize.cpp",
         " is not normalized: use float32, float64, float16 or bfloat16", nullptr},
        {"normalize.device_layout", "runtime/normalize.cpp",
         " normalizes such layouts from host memory only",
         "needs a usable OpenCL device: test_gpu.cpp "
         "(OpenClMemory.NormalizedAxesApartAreRefusedByName)"},
        // runtime/split_pool.cpp
        {"pool.window_stride", "runtime/split_pool.cpp",
         " rows along it is beyond what one kernel call indexes",
         "needs an input spanning 2^31 elements; PoolSplit.WindowAcrossAnUnindexableStrideIsNamed "
         "reaches it with lowered split limits"},
        // runtime/gpu.cpp: refuse_gpu_split, host_input_for, halide_dims, backend_usable,
        // choose_backend, set_backend, gpu_context.
        {"gpu.split", "runtime/gpu.cpp",
         " indexes in one kernel call (2^31 - 1): use the cpu backend",
         "needs a usable OpenCL device: test_gpu.cpp (OpenClMemory.TensorsBeyondOneCallAreRefused) "
         "reaches it with lowered split limits"},
        {"gpu.dense_copy", "runtime/gpu.cpp", " does not fit in memory",
         "an allocation failure copying a reversed host tensor for a GPU backend"},
        {"gpu.copy_32bit", "runtime/gpu.cpp", " beyond what GPU copies index (2^31 - 1)",
         "an identity copy or zero fill of a device tensor with a dim beyond 2^31 - 1"},
        {"gpu.unusable", "runtime/gpu.cpp", " cannot run here: ",
         "depends on the machine: test_gpu.cpp (AnUnusableBackendIsRefusedByName) checks it for "
         "each compiled backend without a device"},
        {"gpu.memory_mismatch", "runtime/gpu.cpp", " differs from input.memory = ", nullptr},
        {"gpu.unreadable", "runtime/gpu.cpp", " cannot be read by backend ",
         "needs a backend override (process-wide): test_gpu.cpp "
         "(DeviceMemoryOnAnotherBackendIsRefused)"},
        {"gpu.opencl_negative", "runtime/gpu.cpp",
         " is negative: an OpenCL buffer starts at element (0, ..., 0)",
         "needs a usable OpenCL device: test_gpu.cpp "
         "(OpenClMemory.NegativeStridesAreRefusedByName)"},
        {"gpu.backend_value", "runtime/gpu.cpp", " is not a Backend",
         "set_backend, an entry point outside the table: test_gpu.cpp "
         "(GpuBackends.BadSettingsAreRefusedByName)"},
        {"gpu.context_null", "runtime/gpu.cpp", "context is null",
         "gpu_context, an entry point outside the table: test_gpu.cpp "
         "(GpuBackends.BadSettingsAreRefusedByName)"},
        {"gpu.context_cpu", "runtime/gpu.cpp", " has no GPU context: use opencl or cuda",
         "gpu_context, an entry point outside the table: test_gpu.cpp "
         "(GpuBackends.BadSettingsAreRefusedByName)"},
        // runtime/pool_geometry.cpp: check_per_dim, check_attributes, resolve_axis.
        {"geometry.per_dim_count", "runtime/pool_geometry.cpp", " (1 per spatial dim)", nullptr},
        {"geometry.per_dim_min", "runtime/pool_geometry.cpp", " must be >= 1", nullptr},
        {"geometry.kernel_count", "runtime/pool_geometry.cpp",
         " values; expected 1, 2 or 3 (1 per spatial dim)", nullptr},
        {"geometry.rank", "runtime/pool_geometry.cpp", " does not fit kernel with ", nullptr},
        {"geometry.negative", "runtime/pool_geometry.cpp", " is negative", nullptr},
        {"geometry.kernel_min", "runtime/pool_geometry.cpp", " must be >= 1", nullptr},
        {"geometry.pads_count", "runtime/pool_geometry.cpp",
         " (2 per spatial dim: begins, then ends)", nullptr},
        {"geometry.pads_min", "runtime/pool_geometry.cpp", " must be >= 0", nullptr},
        {"geometry.p", "runtime/pool_geometry.cpp", " must be finite and > 0 for pooling", nullptr},
        {"geometry.auto_pad", "runtime/pool_geometry.cpp", " is not an AutoPad value", nullptr},
        {"geometry.mode", "runtime/pool_geometry.cpp", " is not a PoolMode value", nullptr},
        {"geometry.overhang", "runtime/pool_geometry.cpp", " is not an Overhang value", nullptr},
        {"geometry.same_empty", "runtime/pool_geometry.cpp",
         " leaves no output under auto_pad SAME", nullptr},
        {"geometry.window", "runtime/pool_geometry.cpp", " is smaller than the window of ",
         nullptr},
        {"geometry.ceil_drop", "runtime/pool_geometry.cpp", ": ceil_mode drops its only window",
         nullptr},
        {"geometry.outputs", "runtime/pool_geometry.cpp", " outputs",
         "an input dim near 2^63: "
         "tests/fuzz/test_regressions.cpp (PoolOutputBeyondInt64IsTooLarge)"},
        {"geometry.window_reach", "runtime/pool_geometry.cpp", " need window offsets beyond 2^30",
         nullptr},
        // runtime/settings.cpp: set_isa.
        {"settings.isa_value", "runtime/settings.cpp", " is not an Isa", nullptr},
        {"settings.isa_cpu", "runtime/settings.cpp", " cannot run on this CPU", nullptr},
        {"settings.isa_build", "runtime/settings.cpp", " was not compiled in this build", nullptr},
        // runtime/c_api.cpp: to_tensor, check_shape_query, to_pool_params, the entry points.
        {"c.tensor_null", "runtime/c_api.cpp", " is null", nullptr},
        {"c.tensor_rank", "runtime/c_api.cpp", " is outside [0, ", nullptr},
        {"c.tensor_dtype", "runtime/c_api.cpp", " is not an lpnorm_dtype", nullptr},
        {"c.tensor_memory", "runtime/c_api.cpp", " is not an lpnorm_memory", nullptr},
        {"c.tensor_shape_null", "runtime/c_api.cpp", ".shape is null for rank ", nullptr},
        {"c.query_rank", "runtime/c_api.cpp", " is outside [0, 8]", nullptr},
        {"c.query_null", "runtime/c_api.cpp", "shape, out_rank and out_shape must not be null",
         nullptr},
        {"c.params_null", "runtime/c_api.cpp", "params is null", nullptr},
        {"c.spatial_dims", "runtime/c_api.cpp", " is not 1, 2 or 3", nullptr},
        {"c.kernel_null", "runtime/c_api.cpp", "params.kernel is null", nullptr},
        {"c.reduce_num_axes", "runtime/c_api.cpp", " is negative", nullptr},
        {"c.reduce_axes_null", "runtime/c_api.cpp", "axes is null but num_axes = ", nullptr},
        {"c.shape_axes_null", "runtime/c_api.cpp", "axes is null but num_axes = ", nullptr},
        {"c.shape_num_axes", "runtime/c_api.cpp", " is negative", nullptr},
        {"c.isa_name", "runtime/c_api.cpp",
         " is not one of auto, sse41, avx2, avx512, neon, neon_fp16", nullptr},
        {"c.backend_name", "runtime/c_api.cpp", " is not one of auto_select, cpu, opencl, cuda",
         nullptr},
        // include/lpnorm/onnx.h: to_params (ReduceL1/L2), then the LpPool/GlobalLpPool checks.
        {"onnx.reduce_opset", "include/lpnorm/onnx.h", " is not an ONNX opset (>= 1)", nullptr},
        {"onnx.keepdims", "include/lpnorm/onnx.h", " must be 0 or 1 for ", nullptr},
        {"onnx.noop_value", "include/lpnorm/onnx.h", " must be 0 or 1 for ", nullptr},
        {"onnx.noop_opset", "include/lpnorm/onnx.h", " (added in opset 18)", nullptr},
        {"onnx.reduce_dtype", "include/lpnorm/onnx.h", " is not allowed by ONNX ", nullptr},
        {"onnx.pool_opset", "include/lpnorm/onnx.h", " is not an ONNX opset (>= 1)",
         nullptr},  // check_opset: LpPool, GlobalLpPool and LpNormalization
        {"onnx.pool_dtype", "include/lpnorm/onnx.h", " is not allowed by ONNX ", nullptr},
        {"onnx.pool_p", "include/lpnorm/onnx.h", " must be a finite value > 0 for ", nullptr},
        {"onnx.pool_p_int", "include/lpnorm/onnx.h",
         " is not an integer: p is an INT attribute of ", nullptr},
        {"onnx.dilations_opset", "include/lpnorm/onnx.h", " (added in opset 18)", nullptr},
        {"onnx.ceil_opset", "include/lpnorm/onnx.h", " (added in opset 18)", nullptr},
        {"onnx.ceil_value", "include/lpnorm/onnx.h", " must be 0 or 1 for ", nullptr},
        {"onnx.auto_pad", "include/lpnorm/onnx.h",
         " is not NOTSET, SAME_UPPER, SAME_LOWER or VALID (", nullptr},
        {"onnx.kernel_missing", "include/lpnorm/onnx.h", "kernel_shape is missing: ", nullptr},
        {"onnx.kernel_dims", "include/lpnorm/onnx.h", " spatial dims; lpnorm pools 1, 2 or 3 (",
         nullptr},
        {"onnx.rank", "include/lpnorm/onnx.h", " does not match kernel_shape = ", nullptr},
        {"onnx.ints_count", "include/lpnorm/onnx.h", " values; ", nullptr},
        {"onnx.ints_min", "include/lpnorm/onnx.h", " must be >= ", nullptr},
        {"onnx.pads_auto_pad", "include/lpnorm/onnx.h",
         " cannot be used with auto_pad = ", nullptr},
        {"onnx.global_rank", "include/lpnorm/onnx.h", " is not 3, 4 or 5: ", nullptr},
        {"onnx.global_shape", "include/lpnorm/onnx.h", " needs every spatial dim >= 1", nullptr},
        {"onnx.normalize_dtype", "include/lpnorm/onnx.h", " is not a type of ONNX ", nullptr},
        {"onnx.normalize_p", "include/lpnorm/onnx.h", " is not 1 or 2, the orders ONNX ", nullptr},
        // include/lpnorm/openvino.h: reduce_lp, then NormalizeL2's to_normalize_params and
        // unit_axis.
        {"openvino.reduce_lp_p", "include/lpnorm/openvino.h",
         " is not 1 or 2 (ReduceLp accepts only those)", nullptr},
        {"openvino.normalize_eps_mode", "include/lpnorm/openvino.h", " is not add or max (",
         nullptr},
        {"openvino.normalize_dtype", "include/lpnorm/openvino.h", " is not a floating-point type (",
         nullptr},
        {"openvino.normalize_unit_axis", "include/lpnorm/openvino.h",
         " and no dim of size 1: lpnorm divides each element by itself as a ", nullptr},
        // include/lpnorm/directml.h: check_array, check_desc, check_tensors, check_output_sizes.
        {"dml.array_count", "include/lpnorm/directml.h", " values; DimensionCount = ", nullptr},
        {"dml.array_min", "include/lpnorm/directml.h", " must be >= ", nullptr},
        {"dml.dimension_count", "include/lpnorm/directml.h",
         " must be 2 (4-D tensors) or 3 (5-D tensors) (", nullptr},
        {"dml.p", "include/lpnorm/directml.h", "P = ", nullptr},
        {"dml.input_rank", "include/lpnorm/directml.h", "InputTensor has ", nullptr},
        {"dml.input_dtype", "include/lpnorm/directml.h", " is not FLOAT32 or FLOAT16 (", nullptr},
        {"dml.output_dtype", "include/lpnorm/directml.h",
         " differs from InputTensor.DataType = ", nullptr},
        {"dml.output_rank", "include/lpnorm/directml.h", " dimensions; InputTensor has ", nullptr},
        {"dml.output_sizes", "include/lpnorm/directml.h", " differs from the expected ", nullptr},
        // include/lpnorm/directml.h: check_normalization (LP_NORMALIZATION), which also reaches
        // dml.input_dtype, dml.output_dtype and dml.output_rank.
        {"dml.norm_p", "include/lpnorm/directml.h", " is not 1 or 2 (", nullptr},
        {"dml.norm_epsilon", "include/lpnorm/directml.h", " must be finite and >= 0 (", nullptr},
        {"dml.norm_input_rank", "include/lpnorm/directml.h", " takes 1 to ", nullptr},
        {"dml.norm_axis", "include/lpnorm/directml.h", " is out of range: InputTensor has ",
         nullptr},
        {"dml.norm_output_sizes", "include/lpnorm/directml.h", " differs from InputTensor.",
         nullptr},
        // include/lpnorm/torch.h: expand, to_pool_params, lp_pool, check_vector_norm, normalize.
        {"torch.expand_count", "include/lpnorm/torch.h", " must be a single int or ", nullptr},
        {"torch.expand_min", "include/lpnorm/torch.h", " must be >= 1 (", nullptr},
        {"torch.norm_type", "include/lpnorm/torch.h",
         " is not supported: lpnorm pools with a finite norm_type > 0 (", nullptr},
        {"torch.input_rank", "include/lpnorm/torch.h", " spatial) or ", nullptr},
        {"torch.output_rank", "include/lpnorm/torch.h", " differs from input.rank = ", nullptr},
        {"torch.vn_dtype", "include/lpnorm/torch.h",
         "linalg.vector_norm: Expected a floating point or complex ", nullptr},
        {"torch.vn_ord", "include/lpnorm/torch.h",
         " is not supported (lpnorm computes ord > 0, 0, inf and -inf)", nullptr},
        {"torch.vn_empty", "include/lpnorm/torch.h",
         " norm on an empty tensor because the operation does not have an identity", nullptr},
        {"torch.vn_empty_dim", "include/lpnorm/torch.h",
         " because this dimension is empty and the operation does not have an ", nullptr},
        {"torch.normalize_p", "include/lpnorm/torch.h",
         " is not supported: lpnorm normalizes with p > 0 or inf (normalize)", nullptr},
    };
    return s;
}

}  // namespace lpnorm::test::bad_input
