// The entry point OpenVINO calls when the library is loaded with Core::add_extension: lpnorm's
// operations (for reading IR and for compiling models that hold them) and the ONNX frontend
// conversions onto them.
#include <memory>
#include <vector>

#include <openvino/core/extension.hpp>
#include <openvino/core/op_extension.hpp>
#include <openvino/frontend/onnx/extension/conversion.hpp>

#include "lp_normalize.hpp"
#include "lp_pool.hpp"
#include "onnx_conversions.hpp"
#include "reduce_lp.hpp"

namespace {

using lpnorm::ov_extension::LpNormalize;
using lpnorm::ov_extension::LpPool;
using lpnorm::ov_extension::ReduceLp;
using OnnxConversion = ov::frontend::onnx::ConversionExtension;

std::vector<ov::Extension::Ptr> lpnorm_extensions() {
    return {
        std::make_shared<ov::OpExtension<LpPool>>(),
        std::make_shared<ov::OpExtension<ReduceLp>>(),
        std::make_shared<ov::OpExtension<LpNormalize>>(),
        std::make_shared<OnnxConversion>("LpPool", lpnorm::ov_extension::convert_onnx_lp_pool),
        std::make_shared<OnnxConversion>("ReduceL1", lpnorm::ov_extension::convert_onnx_reduce_l1),
        std::make_shared<OnnxConversion>("ReduceL2", lpnorm::ov_extension::convert_onnx_reduce_l2),
        std::make_shared<OnnxConversion>("LpNormalization",
                                         lpnorm::ov_extension::convert_onnx_lp_normalization),
    };
}

}  // namespace

OPENVINO_CREATE_EXTENSIONS(lpnorm_extensions());
