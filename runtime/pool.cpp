// lpnorm::pool: validate -> resolve the window geometry -> select variant -> run
// (split_pool.h).
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "gpu.h"
#include "kernel_abi.h"
#include "lpnorm/lpnorm.h"
#include "pool_geometry.h"
#include "registry.h"
#include "settings.h"
#include "split_pool.h"
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

    Backend backend = Backend::cpu;
    s = rt::choose_backend(input, output, &backend);
    if (!s.ok()) return s;

    if (output.num_elements() == 0) {
        return Status::Ok();
    }
    if (input.num_elements() == 0) {
        // Only padding under every window: the sum of no terms is 0 (all-zero bits).
        if (input.memory != Memory::host) return rt::device_zero(output);
        std::memset(output.data, 0, size_t(output.num_elements()) * dtype_size(output.dtype));
        return Status::Ok();
    }

    const int spatial = static_cast<int>(axes.size());
    const Isa isa = active_isa();
    const bool gpu = rt::is_gpu(backend);
    const rt::PoolKernel *kernel = gpu ? rt::find_gpu_pool_kernel(spatial, input.dtype, backend)
                                       : rt::find_pool_kernel(spatial, input.dtype, isa);
    if (kernel == nullptr) {
        return Status(ErrorCode::unsupported,
                      "no " + std::to_string(spatial) + "-D pooling kernel for dtype " +
                          dtype_name(input.dtype) +
                          (gpu ? std::string(" on backend ") + backend_name(backend)
                               : std::string(" at isa ") + isa_name(isa)) +
                          " in this build");
    }

    rt::PoolCall call;
    call.kernel = kernel;
    call.backend = backend;
    call.memory = input.memory;
    call.p_kind = pool_kind(params.p);
    call.p = params.p;
    call.signed_pow = params.mode == PoolMode::signed_pow;
    call.rescale = params.overhang == Overhang::rescale;
    call.axes = std::move(axes);
    std::vector<unsigned char> dense_storage;
    Tensor in;
    s = rt::host_input_for(backend, input, &dense_storage, &in);
    if (!s.ok()) return s;
    return rt::run_pool(in, output, call);
}

}  // namespace lpnorm
