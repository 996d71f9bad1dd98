#include "ir/fusion/op_pattern.h"

namespace lightsim::ir::fusion {

// Sources (TVM, src/relay/op/...): nn/nn.cc (dense, batch_matmul, softmax: kOutEWiseFusable in TVM >= 0.8;
// relu: kElemWise), nn/convolution.cc and nn/pooling.cc (kOutEWiseFusable), tensor/binary.cc (add ..
// power, less: kBroadcast), tensor/unary.cc (exp, erf, sqrt, rsqrt, sigmoid, tanh, negative, cast:
// kElemWise), tensor/transform.cc (reshape, squeeze, expand_dims, transpose, take, split, concatenate,
// strided_slice, layout_transform: kInjective; where: kBroadcast), tensor/reduce.cc (mean, sum:
// kCommReduce). No `default:` so that a new op class without a pattern does not compile (-Wswitch).
OpPattern op_pattern(OpClass c) {
  switch (c) {
  case OpClass::Input:
  case OpClass::Opaque:
  case OpClass::Count_:
    return OpPattern::Opaque;
  case OpClass::Dense:
  case OpClass::BatchMatmul:
  case OpClass::Conv2d:
  case OpClass::Pool:
  case OpClass::Softmax:
  case OpClass::Attention:
    return OpPattern::OutEWiseFusable;
  case OpClass::Nop:
  case OpClass::LayoutTransform:
  case OpClass::Transpose:
  case OpClass::Take:
  case OpClass::Split:
  case OpClass::Concatenate:
  case OpClass::StridedSlice:
    return OpPattern::Injective;
  case OpClass::Add:
  case OpClass::Subtract:
  case OpClass::Multiply:
  case OpClass::Divide:
  case OpClass::Power:
  case OpClass::Less:
  case OpClass::Where:
    return OpPattern::Broadcast;
  case OpClass::Negative:
  case OpClass::Sqrt:
  case OpClass::Rsqrt:
  case OpClass::Exp:
  case OpClass::Erf:
  case OpClass::Relu:
  case OpClass::Sigmoid:
  case OpClass::Tanh:
  case OpClass::Cast:
    return OpPattern::ElemWise;
  case OpClass::Mean:
  case OpClass::Sum:
    return OpPattern::CommReduce;
  }
  return OpPattern::Opaque;
}

std::string_view op_pattern_name(OpPattern p) {
  switch (p) {
  case OpPattern::ElemWise:
    return "elemwise";
  case OpPattern::Broadcast:
    return "broadcast";
  case OpPattern::Injective:
    return "injective";
  case OpPattern::CommReduce:
    return "comm_reduce";
  case OpPattern::OutEWiseFusable:
    return "out_elemwise_fusable";
  case OpPattern::Tuple:
    return "tuple";
  case OpPattern::Opaque:
    return "opaque";
  }
  return "?";
}

} // namespace lightsim::ir::fusion
