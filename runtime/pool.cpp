// lpnorm::pool: validate -> resolve the window geometry -> select variant -> wrap buffers ->
// call.
#include <cmath>
#include <cstring>

#include "halide_glue.h"
#include "kernel_abi.h"
#include "lpnorm/lpnorm.h"
#include "pool_geometry.h"
#include "registry.h"
#include "settings.h"
#include "validate.h"

namespace lpnorm {
namespace {

int pool_kind(double p) {
    if (p == 1) return abi::kPool1;
    if (p == 2) return abi::kPool2;
    if (p == 3) return abi::kPool3;
    if (p == 4) return abi::kPool4;
    if (p == std::floor(p) && p <= abi::kMaxChainPower) return abi::kPoolInt;
    return abi::kPoolP;
}

bool is_pool_dtype(DType d) {
    return d == DType::float32 || d == DType::float64 || d == DType::float16 ||
           d == DType::bfloat16;
}

// Halide buffers index with 32-bit extents and strides.
Status check_32bit(const Tensor &t, const char *name) {
    for (int i = 0; i < t.rank; i++) {
        if (t.shape[i] > INT32_MAX || t.strides[i] > INT32_MAX || t.strides[i] < INT32_MIN) {
            return Status(ErrorCode::too_large,
                          std::string(name) + ".shape = " + rt::format_shape(t.shape, t.rank) +
                              " with strides " + rt::format_shape(t.strides, t.rank) +
                              " needs more than 32-bit extents or strides");
        }
    }
    return Status::Ok();
}

rt::Shape output_shape_of(const std::vector<int64_t> &input_shape,
                          const std::vector<PoolAxis> &axes) {
    rt::Shape out;
    out.dim[out.rank++] = input_shape[0];
    out.dim[out.rank++] = input_shape[1];
    for (const PoolAxis &a : axes) {
        out.dim[out.rank++] = a.output;
    }
    return out;
}

}  // namespace

Status pool_geometry(const std::vector<int64_t> &input_shape, const PoolParams &params,
                     std::vector<PoolAxis> *axes) {
    return rt::resolve_pool_geometry(input_shape, params, axes);
}

Status pool_output_shape(const std::vector<int64_t> &input_shape, const PoolParams &params,
                         std::vector<int64_t> *output_shape) {
    std::vector<PoolAxis> axes;
    Status s = rt::resolve_pool_geometry(input_shape, params, &axes);
    if (!s.ok()) return s;
    *output_shape = output_shape_of(input_shape, axes).to_vector();
    return Status::Ok();
}

Status pool(const Tensor &input, const Tensor &output, const PoolParams &params) {
    Status s = rt::validate_tensor(input, "input");
    if (!s.ok()) return s;
    s = rt::validate_tensor(output, "output");
    if (!s.ok()) return s;
    if (!is_pool_dtype(input.dtype)) {
        return Status(ErrorCode::invalid_argument,
                      std::string("input.dtype = ") + dtype_name(input.dtype) +
                          " is not pooled: use float32, float64, float16 or bfloat16");
    }
    const std::vector<int64_t> shape = input.shape_vector();
    std::vector<PoolAxis> axes;
    s = rt::resolve_pool_geometry(shape, params, &axes);
    if (!s.ok()) return s;
    s = rt::validate_output(input, output, output_shape_of(shape, axes));
    if (!s.ok()) return s;
    s = check_32bit(input, "input");
    if (!s.ok()) return s;
    s = check_32bit(output, "output");
    if (!s.ok()) return s;

    if (output.num_elements() == 0) {
        return Status::Ok();
    }
    if (input.num_elements() == 0) {
        // Only padding under every window: the sum of no terms is 0 (all-zero bits).
        std::memset(output.data, 0, size_t(output.num_elements()) * dtype_size(output.dtype));
        return Status::Ok();
    }

    const int spatial = static_cast<int>(axes.size());
    const Isa isa = active_isa();
    const rt::PoolKernel *kernel = rt::find_pool_kernel(spatial, input.dtype, isa);
    if (kernel == nullptr) {
        return Status(ErrorCode::unsupported, "no " + std::to_string(spatial) +
                                                  "-D pooling kernel for dtype " +
                                                  dtype_name(input.dtype) + " at isa " +
                                                  isa_name(isa) + " in this build");
    }

    // Halide order is innermost first: (last spatial dim, ..., first, C, N).
    const int dims = input.rank;
    int64_t in_extent[kMaxRank], in_stride[kMaxRank], out_extent[kMaxRank], out_stride[kMaxRank];
    for (int i = 0; i < dims; i++) {
        in_extent[i] = input.shape[dims - 1 - i];
        in_stride[i] = input.strides[dims - 1 - i];
        out_extent[i] = output.shape[dims - 1 - i];
        out_stride[i] = output.strides[dims - 1 - i];
    }
    int32_t window[5][abi::kMaxPoolSpatial] = {};  // kernel, stride, dilation, pad begin, end
    for (int d = 0; d < abi::kMaxPoolSpatial; d++) {
        const PoolAxis a = d < spatial ? axes[size_t(spatial - 1 - d)] : PoolAxis{};
        window[0][d] = int32_t(a.kernel);
        window[1][d] = int32_t(a.stride);
        window[2][d] = int32_t(a.dilation);
        window[3][d] = int32_t(a.pad_begin);
        window[4][d] = int32_t(a.pad_end);
    }

    rt::install_halide_handlers();
    rt::BufferView in_buf(input.data, input.dtype, dims, in_extent, in_stride);
    rt::BufferView out_buf(output.data, output.dtype, dims, out_extent, out_stride);
    const int code = kernel->fn(
        in_buf.get(), pool_kind(params.p), params.p, params.mode == PoolMode::signed_pow,
        params.overhang == Overhang::rescale, window[0][0], window[0][1], window[0][2],
        window[1][0], window[1][1], window[1][2], window[2][0], window[2][1], window[2][2],
        window[3][0], window[3][1], window[3][2], window[4][0], window[4][1], window[4][2],
        out_buf.get());
    if (code != 0) {
        return rt::kernel_failure(kernel->symbol, code);
    }
    return Status::Ok();
}

}  // namespace lpnorm
