// lpnorm::reduce_backward: validate -> group the axes into the kernels' (k0, r, k1) form ->
// run, as normalize() does, with y and dy read once per group.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpu.h"
#include "grouped_layout.h"
#include "halide_glue.h"
#include "kernel_abi.h"
#include "lpnorm/lpnorm.h"
#include "reduce_params.h"
#include "registry.h"
#include "split_limits.h"
#include "validate.h"

namespace lpnorm {
namespace {

// The tensors of a call in plan_grouped's order: x, y, dy, dx.
enum : int { kX = 0, kY = 1, kDy = 2, kDx = 3, kNumTensors = 4 };
constexpr bool kPerGroup[kNumTensors] = {false, true, true, false};

// `t` (of the forward's output shape) seen with x's rank: extent 1 and stride 0 along the
// reduced axes, which keep_dims = false drops from t.
Tensor expand_group_tensor(const Tensor &t, const Tensor &input, uint32_t reduced, bool keep_dims) {
    Tensor view = t;
    view.rank = input.rank;
    int k = 0;
    for (int a = 0; a < input.rank; a++) {
        const bool is_reduced = (reduced >> a) & 1;
        view.shape[a] = is_reduced ? 1 : input.shape[a];
        view.strides[a] = is_reduced ? 0 : t.strides[k];
        if (!is_reduced || keep_dims) k++;
    }
    return view;
}

// The four tensors of a call, with x's rank (y and dy expanded), and where it runs.
struct Call {
    Tensor t[kNumTensors];
    uint32_t reduced = 0;
    int kind = 0;
    double p = 2;
    Backend backend = Backend::cpu;
    Memory memory = Memory::host;
};

bool plan_call(const Call &c, rt::GroupedPlan *plan) {
    const int64_t *strides[kNumTensors];
    for (int i = 0; i < kNumTensors; i++) strides[i] = c.t[i].strides;
    return rt::plan_grouped(c.t[kX].shape, c.t[kX].rank, c.reduced, strides, kPerGroup, kNumTensors,
                            plan);
}

Status run_plan(const rt::GroupedPlan &plan, const Call &c) {
    Status s = rt::check_grouped_indexing(plan, kNumTensors, "a reduction gradient");
    if (!s.ok()) return s;
    const DType dtype = c.t[kX].dtype;
    const rt::Place place{c.backend, active_isa()};
    const rt::ReduceBackwardKernel *kernel =
        rt::find_kernel<rt::ReduceBackwardKernel>({plan.pattern}, dtype, place);
    if (kernel == nullptr) {
        return Status(ErrorCode::unsupported,
                      std::string("no ") + rt::grouped_pattern_name(plan.pattern) +
                          " reduction gradient kernel for dtype " + dtype_name(dtype) +
                          rt::place_phrase(place) + " in this build");
    }
    const rt::KernelScope kernel_scope;
    rt::note_kernel_call(kernel->symbol);
    int64_t extents[kNumTensors][3];
    for (int i = 0; i < kNumTensors; i++) plan.extents_of(i, extents[i]);
    rt::BufferView x(c.t[kX].data, dtype, plan.dims, extents[kX], plan.stride[kX]);
    rt::BufferView y(c.t[kY].data, dtype, plan.dims, extents[kY], plan.stride[kY]);
    rt::BufferView dy(c.t[kDy].data, dtype, plan.dims, extents[kDy], plan.stride[kDy]);
    rt::BufferView dx(c.t[kDx].data, dtype, plan.dims, extents[kDx], plan.stride[kDx]);
    rt::KernelBuffers buffers(place.gpu(), c.memory,
                              {{x.get(), "input"}, {y.get(), "output"}, {dy.get(), "output_grad"}},
                              dx.get(), "input_grad");
    const Status attached = buffers.attach();
    if (!attached.ok()) return attached;
    const int code = kernel->fn(x.get(), y.get(), dy.get(), c.kind, c.p, dx.get());
    if (code != 0) return rt::kernel_failure(kernel->symbol, code);
    return buffers.finish();
}

}  // namespace

Status reduce_backward(const Tensor &input, const Tensor &output, const Tensor &output_grad,
                       const Tensor &input_grad, const ReduceParams &params) {
    const Tensor *tensors[] = {&input, &output, &output_grad, &input_grad};
    const char *names[] = {"input", "output", "output_grad", "input_grad"};
    for (int i = 0; i < kNumTensors; i++) {
        Status s = rt::validate_tensor(*tensors[i], names[i]);
        if (!s.ok()) return s;
    }
    if (!rt::is_gradient_dtype(input.dtype)) {
        return Status(ErrorCode::invalid_argument,
                      std::string("input.dtype = ") + dtype_name(input.dtype) +
                          " has no gradient: use float32, float64, float16 or bfloat16");
    }
    rt::ResolvedReduce r;
    Status s = rt::resolve_reduce(input.rank, params, &r);
    if (!s.ok()) return s;
    const rt::Shape forward_shape =
        rt::reduce_output_shape_of(input.shape, input.rank, r.reduced, params.keep_dims);
    s = rt::check_gradient_tensors(input, output, output_grad, input_grad, forward_shape);
    if (!s.ok()) return s;
    Call c;
    s = rt::choose_backend(tensors, names, kNumTensors, &c.backend);
    if (!s.ok()) return s;
    c.memory = input.memory;

    if (input_grad.num_elements() == 0) return Status::Ok();
    const bool on_device = c.memory != Memory::host;
    if (r.identity) {  // y = x
        if (on_device) return rt::device_copy(output_grad, input_grad);
        rt::copy_to_dense(output_grad, input_grad.data);
        return Status::Ok();
    }
    if (r.p == 0) {  // y counts the non-zero elements: piecewise constant
        if (on_device) return rt::device_zero(input_grad);
        std::memset(input_grad.data, 0,
                    size_t(input_grad.num_elements()) * dtype_size(input_grad.dtype));
        return Status::Ok();
    }
    // Host tensors with a negative stride, densely copied for a GPU backend: x, y, dy.
    std::vector<unsigned char> dense[3];
    Tensor read[3];
    s = rt::host_inputs_for(c.backend, tensors, 3, dense, read);
    if (!s.ok()) return s;
    c.t[kX] = read[0];
    c.t[kY] = expand_group_tensor(read[1], input, r.reduced, params.keep_dims);
    c.t[kDy] = expand_group_tensor(read[2], input, r.reduced, params.keep_dims);
    c.t[kDx] = input_grad;
    c.reduced = r.reduced;
    c.kind = abi::reduce_backward_kind(r.p);
    c.p = r.p;
    // Planned with x's shape; y and dy have stride 0 along the reduced axes.
    rt::GroupedPlan plan;
    if (plan_call(c, &plan)) return run_plan(plan, c);
    if (on_device) {
        return Status(ErrorCode::unsupported,
                      std::string("input.strides: the reduced axes of these ") +
                          memory_name(c.memory) +
                          " tensors do not merge into one run of memory; backend " +
                          backend_name(c.backend) + " takes such layouts from host memory only");
    }
    // Strides that merge nowhere: dense copies (y and dy copied at their own shape, 1 along the
    // reduced axes).
    constexpr bool kWritten[kNumTensors] = {false, false, false, true};
    return rt::run_on_dense_copies(c.t, kPerGroup, kWritten, kNumTensors, c.reduced,
                                   [&](const Tensor *dense, uint32_t mask) {
                                       Call d = c;
                                       for (int i = 0; i < kNumTensors; i++) d.t[i] = dense[i];
                                       d.reduced = mask;
                                       rt::GroupedPlan dense_plan;
                                       plan_call(d, &dense_plan);  // dense: always merges
                                       return run_plan(dense_plan, d);
                                   });
}

}  // namespace lpnorm
