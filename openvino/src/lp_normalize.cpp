#include "lp_normalize.hpp"

#include <openvino/core/attribute_visitor.hpp>

#include "tensor_bridge.hpp"

namespace lpnorm::ov_extension {

namespace {

bool is_normalize_dtype(DType dtype) {
    return dtype == DType::float32 || dtype == DType::float16 || dtype == DType::bfloat16 ||
           dtype == DType::float64;
}

}  // namespace

LpNormalize::LpNormalize(const ov::Output<ov::Node> &x, const NormalizeParams &params)
    : Op({x}),
      m_axes(params.axes),
      m_p(params.p),
      m_eps(params.eps),
      m_eps_mode(eps_mode_name(params.eps_mode)) {
    constructor_validate_and_infer_types();
}

NormalizeParams LpNormalize::params() const {
    NormalizeParams params;
    params.axes = m_axes;
    params.p = m_p;
    params.eps = m_eps;
    params.eps_mode = parse_eps_mode(m_eps_mode, *this);
    return params;
}

void LpNormalize::validate_and_infer_types() {
    NODE_VALIDATION_CHECK(this, get_input_size() == 1, "lpnorm LpNormalize takes 1 input, got ",
                          get_input_size());
    const NormalizeParams params = this->params();
    const ov::element::Type type = get_input_element_type(0);
    DType dtype;
    NODE_VALIDATION_CHECK(
        this, type.is_dynamic() || (to_dtype(type, &dtype) && is_normalize_dtype(dtype)),
        "lpnorm LpNormalize: X has element type ", type,
        "; lpnorm normalizes f32, f16, bf16 and f64");
    const ov::PartialShape in = get_input_partial_shape(0);
    if (in.rank().is_static()) {
        // The attributes are checked on a stand-in of the input's rank; the output is the input.
        std::vector<int64_t> stand_in(in.size(), 1), out_dims;
        check(normalize_output_shape(stand_in, params, &out_dims), *this);
    }
    set_output_type(0, type, in);
}

bool LpNormalize::visit_attributes(ov::AttributeVisitor &visitor) {
    visitor.on_attribute("axes", m_axes);
    visitor.on_attribute("p", m_p);
    visitor.on_attribute("eps", m_eps);
    visitor.on_attribute("eps_mode", m_eps_mode);
    return true;
}

std::shared_ptr<ov::Node> LpNormalize::clone_with_new_inputs(const ov::OutputVector &inputs) const {
    OPENVINO_ASSERT(inputs.size() == 1, "lpnorm LpNormalize takes 1 input, got ", inputs.size());
    return std::make_shared<LpNormalize>(inputs[0], params());
}

bool LpNormalize::has_evaluate() const {
    DType dtype;
    return to_dtype(get_input_element_type(0), &dtype) && is_normalize_dtype(dtype);
}

bool LpNormalize::evaluate(ov::TensorVector &outputs, const ov::TensorVector &inputs) const {
    return evaluate_one<NormalizeParams>(*this, outputs, inputs, params(), normalize_output_shape,
                                         normalize);
}

}  // namespace lpnorm::ov_extension
