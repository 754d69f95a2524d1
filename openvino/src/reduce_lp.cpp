#include "reduce_lp.hpp"

#include <openvino/core/attribute_visitor.hpp>

#include "tensor_bridge.hpp"

namespace lpnorm::ov_extension {

ReduceLp::ReduceLp(const ov::Output<ov::Node> &x, const ReduceParams &params)
    : Op({x}),
      m_axes(params.axes),
      m_p(params.p),
      m_keep_dims(params.keep_dims),
      m_empty_axes(empty_axes_name(params.empty_axes)) {
    constructor_validate_and_infer_types();
}

ReduceParams ReduceLp::params() const {
    ReduceParams params;
    params.axes = m_axes;
    params.p = m_p;
    params.keep_dims = m_keep_dims;
    params.empty_axes = parse_empty_axes(m_empty_axes, *this);
    return params;
}

void ReduceLp::validate_and_infer_types() {
    NODE_VALIDATION_CHECK(this, get_input_size() == 1, "lpnorm ReduceLp takes 1 input, got ",
                          get_input_size());
    const ReduceParams params = this->params();
    const ov::element::Type type = get_input_element_type(0);
    DType dtype;
    NODE_VALIDATION_CHECK(this, type.is_dynamic() || to_dtype(type, &dtype),
                          "lpnorm ReduceLp: X has element type ", type,
                          "; lpnorm reduces f32, f16, bf16, f64 and 8- to 64-bit integers");
    const ov::PartialShape in = get_input_partial_shape(0);
    if (in.rank().is_dynamic()) {
        set_output_type(0, type, ov::PartialShape::dynamic());
        return;
    }
    // lpnorm validates p and the axes on a stand-in shape (unknown dims as 1) and gives the
    // output shape; the output dims of unknown input dims are unknown.
    const size_t rank = in.size();
    std::vector<int64_t> stand_in(rank);
    for (size_t i = 0; i < rank; i++) {
        stand_in[i] = in[i].is_static() ? in[i].get_length() : 1;
    }
    std::vector<int64_t> out_dims;
    check(reduce_output_shape(stand_in, params, &out_dims), *this);
    if (in.is_static()) {
        set_output_type(
            0, type,
            ov::PartialShape(std::vector<ov::Dimension>(out_dims.begin(), out_dims.end())));
        return;
    }
    std::vector<bool> reduced(rank,
                              params.axes.empty() && params.empty_axes == EmptyAxes::reduce_all);
    for (int64_t axis : params.axes) {
        reduced[axis < 0 ? axis + static_cast<int64_t>(rank) : axis] = true;
    }
    std::vector<ov::Dimension> out;
    for (size_t i = 0; i < rank; i++) {
        if (!reduced[i]) {
            out.push_back(in[i]);
        } else if (params.keep_dims) {
            out.push_back(1);
        }
    }
    set_output_type(0, type, ov::PartialShape(out));
}

bool ReduceLp::visit_attributes(ov::AttributeVisitor &visitor) {
    visitor.on_attribute("axes", m_axes);
    visitor.on_attribute("p", m_p);
    visitor.on_attribute("keep_dims", m_keep_dims);
    visitor.on_attribute("empty_axes", m_empty_axes);
    return true;
}

std::shared_ptr<ov::Node> ReduceLp::clone_with_new_inputs(const ov::OutputVector &inputs) const {
    OPENVINO_ASSERT(inputs.size() == 1, "lpnorm ReduceLp takes 1 input, got ", inputs.size());
    return std::make_shared<ReduceLp>(inputs[0], params());
}

bool ReduceLp::has_evaluate() const {
    DType dtype;
    return to_dtype(get_input_element_type(0), &dtype);
}

bool ReduceLp::evaluate(ov::TensorVector &outputs, const ov::TensorVector &inputs) const {
    return evaluate_one<ReduceParams>(*this, outputs, inputs, params(), reduce_output_shape,
                                      reduce);
}

}  // namespace lpnorm::ov_extension
