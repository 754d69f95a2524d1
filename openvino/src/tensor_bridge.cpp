#include "tensor_bridge.hpp"

#include <openvino/core/except.hpp>

namespace lpnorm::ov_extension {

bool to_dtype(const ov::element::Type &type, DType *dtype) {
    switch (ov::element::Type_t(type)) {
    case ov::element::Type_t::f32: *dtype = DType::float32; return true;
    case ov::element::Type_t::f16: *dtype = DType::float16; return true;
    case ov::element::Type_t::bf16: *dtype = DType::bfloat16; return true;
    case ov::element::Type_t::f64: *dtype = DType::float64; return true;
    case ov::element::Type_t::i8: *dtype = DType::int8; return true;
    case ov::element::Type_t::u8: *dtype = DType::uint8; return true;
    case ov::element::Type_t::i16: *dtype = DType::int16; return true;
    case ov::element::Type_t::u16: *dtype = DType::uint16; return true;
    case ov::element::Type_t::i32: *dtype = DType::int32; return true;
    case ov::element::Type_t::u32: *dtype = DType::uint32; return true;
    case ov::element::Type_t::i64: *dtype = DType::int64; return true;
    case ov::element::Type_t::u64: *dtype = DType::uint64; return true;
    default: return false;
    }
}

Tensor to_lpnorm(const ov::Tensor &tensor) {
    DType dtype;
    OPENVINO_ASSERT(to_dtype(tensor.get_element_type(), &dtype), "lpnorm: element type ",
                    tensor.get_element_type(), " is not supported");
    const ov::Shape shape = tensor.get_shape();
    OPENVINO_ASSERT(shape.size() <= static_cast<size_t>(kMaxRank), "lpnorm: rank ", shape.size(),
                    " exceeds the largest supported rank ", kMaxRank);
    const size_t element_size = dtype_size(dtype);
    std::vector<int64_t> dims = to_int64(shape);
    std::vector<int64_t> strides(dims.size(), 0);
    if (tensor.get_size() > 0) {
        // OpenVINO reports byte strides; a tensor without elements keeps zeros.
        const ov::Strides byte_strides = tensor.get_strides();
        for (size_t i = 0; i < dims.size(); i++) {
            OPENVINO_ASSERT(byte_strides[i] % element_size == 0, "lpnorm: stride ", i, " = ",
                            byte_strides[i], " bytes is not a multiple of the element size ",
                            element_size);
            strides[i] = static_cast<int64_t>(byte_strides[i] / element_size);
        }
    }
    // ov::Tensor::data() is const on a const tensor; lpnorm's views take a non-const pointer
    // and only write outputs.
    void *data = const_cast<void *>(tensor.data());
    return Tensor::strided(data, dtype, dims, strides);
}

std::vector<int64_t> to_int64(const ov::Shape &shape) {
    return std::vector<int64_t>(shape.begin(), shape.end());
}

ov::Shape to_shape(const std::vector<int64_t> &dims) { return ov::Shape(dims.begin(), dims.end()); }

void check(const Status &status, const ov::Node &node) {
    if (!status.ok()) {
        OPENVINO_THROW("lpnorm ", node.get_type_name(), " '", node.get_friendly_name(),
                       "': ", status.message(), " (", error_code_name(status.code()), ")");
    }
}

namespace {

template <typename Enum, size_t N>
Enum parse(const std::string &name, const char *attribute, const char *const (&names)[N],
           const ov::Node &node) {
    std::string accepted;
    for (size_t i = 0; i < N; i++) {
        if (name == names[i]) {
            return static_cast<Enum>(i);
        }
        accepted += (i == 0 ? "\"" : ", \"") + std::string(names[i]) + "\"";
    }
    OPENVINO_THROW("lpnorm ", node.get_type_name(), " '", node.get_friendly_name(),
                   "': ", attribute, " = \"", name, "\" is not one of ", accepted);
}

// Indexed by the enum's value.
const char *const kAutoPadNames[] = {"notset", "same_upper", "same_lower", "valid"};
const char *const kPoolModeNames[] = {"abs", "signed"};
const char *const kOverhangNames[] = {"sum", "rescale"};
const char *const kEmptyAxesNames[] = {"identity", "reduce_all", "elementwise"};
const char *const kEpsModeNames[] = {"none", "norm_max", "sum_add", "sum_max"};

}  // namespace

const char *auto_pad_name(AutoPad value) { return kAutoPadNames[static_cast<int>(value)]; }
const char *pool_mode_name(PoolMode value) { return kPoolModeNames[static_cast<int>(value)]; }
const char *overhang_name(Overhang value) { return kOverhangNames[static_cast<int>(value)]; }
const char *empty_axes_name(EmptyAxes value) { return kEmptyAxesNames[static_cast<int>(value)]; }

AutoPad parse_auto_pad(const std::string &name, const ov::Node &node) {
    return parse<AutoPad>(name, "auto_pad", kAutoPadNames, node);
}

PoolMode parse_pool_mode(const std::string &name, const ov::Node &node) {
    return parse<PoolMode>(name, "mode", kPoolModeNames, node);
}

Overhang parse_overhang(const std::string &name, const ov::Node &node) {
    return parse<Overhang>(name, "overhang", kOverhangNames, node);
}

EmptyAxes parse_empty_axes(const std::string &name, const ov::Node &node) {
    return parse<EmptyAxes>(name, "empty_axes", kEmptyAxesNames, node);
}

EpsMode parse_eps_mode(const std::string &name, const ov::Node &node) {
    return parse<EpsMode>(name, "eps_mode", kEpsModeNames, node);
}

}  // namespace lpnorm::ov_extension
