// ONNX frontend conversions onto lpnorm's operations: LpPool (opsets 1, 2, 11, 18, 22) onto
// lpnorm LpPool, ReduceL1 and ReduceL2 (opsets 1, 11, 13, 18) onto lpnorm ReduceLp,
// LpNormalization (opsets 1, 22) onto lpnorm LpNormalize. The ONNX
// semantics come from lpnorm/onnx.h; these functions read the node's attributes and inputs.
#pragma once

#include <openvino/frontend/node_context.hpp>

namespace lpnorm::ov_extension {

ov::OutputVector convert_onnx_lp_pool(const ov::frontend::NodeContext &node);
ov::OutputVector convert_onnx_reduce_l1(const ov::frontend::NodeContext &node);
ov::OutputVector convert_onnx_reduce_l2(const ov::frontend::NodeContext &node);
ov::OutputVector convert_onnx_lp_normalization(const ov::frontend::NodeContext &node);

}  // namespace lpnorm::ov_extension
