// lpnorm::reduce: validate -> resolve the policy and p -> run (split_reduce.h).
#include <cmath>
#include <cstring>
#include <vector>

#include "gpu.h"
#include "kernel_abi.h"
#include "lpnorm/lpnorm.h"
#include "range_repair.h"
#include "reduce_params.h"
#include "registry.h"
#include "settings.h"
#include "split_reduce.h"
#include "validate.h"

namespace lpnorm {
namespace rt {

Status resolve_reduce(int rank, const ReduceParams &params, ResolvedReduce *r) {
    const int policy = int(params.empty_axes);
    if (policy < 0 || policy > int(EmptyAxes::elementwise)) {
        return Status(ErrorCode::invalid_argument,
                      "empty_axes = " + std::to_string(policy) + " is not an EmptyAxes policy");
    }
    Status s = validate_p(params.p);
    if (!s.ok()) return s;
    s = normalize_axes(params.axes, rank, &r->reduced);
    if (!s.ok()) return s;
    r->p = params.p;
    if (params.axes.empty()) {
        switch (params.empty_axes) {
        case EmptyAxes::identity: r->identity = true; break;
        case EmptyAxes::reduce_all: r->reduced = rank > 0 ? (1u << rank) - 1 : 0; break;
        case EmptyAxes::elementwise: r->p = 1; break;  // |x| for every p
        }
    }
    return Status::Ok();
}

Shape reduce_output_shape_of(const int64_t *shape, int rank, uint32_t reduced, bool keep_dims) {
    Shape out;
    for (int i = 0; i < rank; i++) {
        if (!((reduced >> i) & 1)) {
            out.dim[out.rank++] = shape[i];
        } else if (keep_dims) {
            out.dim[out.rank++] = 1;
        }
    }
    return out;
}

}  // namespace rt

Status reduce_output_shape(const std::vector<int64_t> &input_shape, const ReduceParams &params,
                           std::vector<int64_t> *output_shape) {
    Status s = rt::validate_shape(input_shape);
    if (!s.ok()) return s;
    const int rank = static_cast<int>(input_shape.size());
    rt::ResolvedReduce r;
    s = rt::resolve_reduce(rank, params, &r);
    if (!s.ok()) return s;
    *output_shape =
        rt::reduce_output_shape_of(input_shape.data(), rank, r.reduced, params.keep_dims)
            .to_vector();
    return Status::Ok();
}

Status reduce(const Tensor &input, const Tensor &output, const ReduceParams &params) {
    rt::set_last_pattern(-1);
    Status s = rt::validate_tensor(input, "input");
    if (!s.ok()) return s;
    s = rt::validate_tensor(output, "output");
    if (!s.ok()) return s;
    rt::ResolvedReduce r;
    s = rt::resolve_reduce(input.rank, params, &r);
    if (!s.ok()) return s;
    s = rt::validate_output(
        input, output,
        rt::reduce_output_shape_of(input.shape, input.rank, r.reduced, params.keep_dims));
    if (!s.ok()) return s;

    Backend backend = Backend::cpu;
    s = rt::choose_backend(input, output, &backend);
    if (!s.ok()) return s;

    if (output.num_elements() == 0) {
        return Status::Ok();
    }
    const bool on_device = input.memory != Memory::host;
    if (r.identity) {
        if (on_device) return rt::device_copy(input, output);
        rt::copy_to_dense(input, output.data);
        return Status::Ok();
    }
    if (input.num_elements() == 0) {
        // A zero-size reduced dim: the norm of an empty set is 0 (all-zero bits in every dtype).
        if (on_device) return rt::device_zero(output);
        std::memset(output.data, 0, size_t(output.num_elements()) * dtype_size(output.dtype));
        return Status::Ok();
    }

    std::vector<unsigned char> dense_storage;
    Tensor in;
    s = rt::host_input_for(backend, input, &dense_storage, &in);
    if (!s.ok()) return s;
    rt::ReduceCall call;
    call.reduced = r.reduced;
    call.reducer = std::isinf(r.p) ? rt::Reducer::extreme : rt::Reducer::sum;
    call.p_kind = abi::reduce_kind(r.p);
    call.p = r.p;
    call.isa = active_isa();
    call.backend = backend;
    call.memory = input.memory;
    int64_t out_strides[kMaxRank];
    rt::dense_kept_strides(in.shape, in.rank, r.reduced, out_strides);
    rt::ReduceRun ran;
    s = rt::run_reduction(in, output.data, out_strides, call, &ran);
    if (s.ok() && output.memory == Memory::host) {
        rt::repair_reduction_range(in, output.data, call, ran);
    }
    return s;
}

}  // namespace lpnorm
