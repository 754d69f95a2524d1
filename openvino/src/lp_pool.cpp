#include "lp_pool.hpp"

#include <algorithm>

#include <openvino/core/attribute_visitor.hpp>

#include "tensor_bridge.hpp"

namespace lpnorm::ov_extension {

namespace {

// An input extent standing in for an unknown spatial dim during shape inference: one dilated
// window, so that every padding mode accepts it. The output dim it gives is replaced by a
// dynamic one. Invalid attributes give 1; lpnorm then reports them.
int64_t stand_in_extent(const PoolParams &params, size_t axis) {
    const int64_t kernel = params.kernel[axis];
    const int64_t dilation =
        params.dilations.size() == params.kernel.size() ? params.dilations[axis] : 1;
    if (kernel < 1 || dilation < 1 || kernel > (int64_t(1) << 20) ||
        dilation > (int64_t(1) << 20)) {
        return 1;
    }
    return (kernel - 1) * dilation + 1;
}

bool is_pool_dtype(DType dtype) {
    return dtype == DType::float32 || dtype == DType::float16 || dtype == DType::bfloat16 ||
           dtype == DType::float64;
}

}  // namespace

LpPool::LpPool(const ov::Output<ov::Node> &x, const PoolParams &params)
    : Op({x}),
      m_kernel(params.kernel),
      m_strides(params.strides),
      m_dilations(params.dilations),
      m_pads(params.pads),
      m_auto_pad(auto_pad_name(params.auto_pad)),
      m_ceil_mode(params.ceil_mode),
      m_p(params.p),
      m_mode(pool_mode_name(params.mode)),
      m_overhang(overhang_name(params.overhang)) {
    constructor_validate_and_infer_types();
}

PoolParams LpPool::params() const {
    PoolParams params;
    params.kernel = m_kernel;
    params.strides = m_strides;
    params.dilations = m_dilations;
    params.pads = m_pads;
    params.auto_pad = parse_auto_pad(m_auto_pad, *this);
    params.ceil_mode = m_ceil_mode;
    params.p = m_p;
    params.mode = parse_pool_mode(m_mode, *this);
    params.overhang = parse_overhang(m_overhang, *this);
    return params;
}

void LpPool::validate_and_infer_types() {
    NODE_VALIDATION_CHECK(this, get_input_size() == 1, "lpnorm LpPool takes 1 input, got ",
                          get_input_size());
    const PoolParams params = this->params();
    const ov::element::Type type = get_input_element_type(0);
    DType dtype;
    NODE_VALIDATION_CHECK(
        this, type.is_dynamic() || (to_dtype(type, &dtype) && is_pool_dtype(dtype)),
        "lpnorm LpPool: X has element type ", type, "; lpnorm pools f32, f16, bf16 and f64");

    // Shapes with unknown dims are inferred from stand-ins, which also validates the
    // attributes; the output dims of unknown input dims are unknown.
    const size_t k = params.kernel.size();
    ov::PartialShape in = get_input_partial_shape(0);
    if (in.rank().is_dynamic()) {
        in = ov::PartialShape::dynamic(
            ov::Rank(static_cast<int64_t>(std::min<size_t>(k, kMaxRank) + 2)));
    }
    std::vector<int64_t> stand_in(in.size());
    for (size_t i = 0; i < in.size(); i++) {
        if (in[i].is_static()) {
            stand_in[i] = in[i].get_length();
        } else {
            stand_in[i] = i >= 2 && i - 2 < k ? stand_in_extent(params, i - 2) : 1;
        }
    }
    std::vector<int64_t> out_dims;
    check(pool_output_shape(stand_in, params, &out_dims), *this);
    ov::PartialShape out(std::vector<ov::Dimension>(out_dims.begin(), out_dims.end()));
    for (size_t i = 0; i < in.size(); i++) {
        if (in[i].is_dynamic()) {
            out[i] = ov::Dimension::dynamic();
        }
    }
    set_output_type(0, type, out);
}

bool LpPool::visit_attributes(ov::AttributeVisitor &visitor) {
    visitor.on_attribute("kernel", m_kernel);
    visitor.on_attribute("strides", m_strides);
    visitor.on_attribute("dilations", m_dilations);
    visitor.on_attribute("pads", m_pads);
    visitor.on_attribute("auto_pad", m_auto_pad);
    visitor.on_attribute("ceil_mode", m_ceil_mode);
    visitor.on_attribute("p", m_p);
    visitor.on_attribute("mode", m_mode);
    visitor.on_attribute("overhang", m_overhang);
    return true;
}

std::shared_ptr<ov::Node> LpPool::clone_with_new_inputs(const ov::OutputVector &inputs) const {
    OPENVINO_ASSERT(inputs.size() == 1, "lpnorm LpPool takes 1 input, got ", inputs.size());
    return std::make_shared<LpPool>(inputs[0], params());
}

bool LpPool::has_evaluate() const {
    DType dtype;
    return to_dtype(get_input_element_type(0), &dtype) && is_pool_dtype(dtype);
}

bool LpPool::evaluate(ov::TensorVector &outputs, const ov::TensorVector &inputs) const {
    return evaluate_one<PoolParams>(*this, outputs, inputs, params(), pool_output_shape, pool);
}

}  // namespace lpnorm::ov_extension
