#include "ir/fusion/op_pattern.h"

#include "ir/names.h"

namespace lightsim::ir::fusion {

// Sources (TVM, src/relay/op/...): nn/nn.cc (dense, batch_matmul, softmax: kOutEWiseFusable in TVM >= 0.8;
// relu: kElemWise), nn/convolution.cc and nn/pooling.cc (kOutEWiseFusable), tensor/binary.cc (add ..
// power, less: kBroadcast), tensor/unary.cc (exp, erf, sqrt, rsqrt, sigmoid, tanh, negative, cast:
// kElemWise), tensor/transform.cc (reshape, squeeze, expand_dims, transpose, take, split, concatenate,
// strided_slice, layout_transform: kInjective; where: kBroadcast), tensor/reduce.cc (mean, sum:
// kCommReduce). The CNN / encoder classes (TVM main, read through the code search of this project's
// tooling): nn/nn.cc registers nn.batch_norm, nn.log_softmax (and nn.softmax) kOutEWiseFusable and gives
// nn.layer_norm, nn.group_norm and nn.instance_norm no TOpPattern, which FuseOps reads as kOpaque (at
// opt_level 3 SimplifyInference has already decomposed them into elementwise and reduce ops);
// nn/pooling.cc registers every pool (max, avg, global, adaptive) kOutEWiseFusable; conv*_transpose is
// kOutEWiseFusable (nn/convolution.cc); nn.lrn is registered OPAQUE (python/tvm/relay/op/nn/_nn.py);
// nn.pad, image.resize*, tile, repeat are kInjective; clip and the unary math (abs, floor, log, trig)
// kElemWise; maximum / minimum and the comparisons and logic ops kBroadcast (our Elementwise class holds
// both unary and binary ops, so it takes kBroadcast, the weaker of the two); max / min / argmax /
// argmin / all / any and variance / std kCommReduce (tensor/reduce.cc); cumsum / cumprod kOpaque
// (tensor/transform.cc); full / zeros / ones kElemWise; copy kElemWise and broadcast_to kBroadcast, with
// tile / repeat in the same class: Copy takes kInjective, the weakest. No `default:` so that a new op
// class without a pattern does not compile (-Wswitch).
OpPattern op_pattern(OpClass c) {
  switch (c) {
  case OpClass::Input:
  case OpClass::Opaque:
  case OpClass::AllReduce: // a collective is a kernel of its own (a communication library's)
  case OpClass::ReduceScatter:
  case OpClass::AllGather:
  case OpClass::Count_:
    return OpPattern::Opaque;
  case OpClass::Dense:
  case OpClass::BatchMatmul:
  case OpClass::Conv2d:
  case OpClass::Conv2dTranspose:
  case OpClass::Pool:
  case OpClass::Softmax:
  case OpClass::LogSoftmax:
  case OpClass::BatchNorm:
  case OpClass::Attention:
    return OpPattern::OutEWiseFusable;
  case OpClass::LayerNorm:
  case OpClass::Lrn:
  case OpClass::Cumsum:
    return OpPattern::Opaque;
  case OpClass::Nop:
  case OpClass::LayoutTransform:
  case OpClass::Transpose:
  case OpClass::Take:
  case OpClass::Split:
  case OpClass::Concatenate:
  case OpClass::StridedSlice:
  case OpClass::Pad:
  case OpClass::Resize:
  case OpClass::Copy:
    return OpPattern::Injective;
  case OpClass::Add:
  case OpClass::Subtract:
  case OpClass::Multiply:
  case OpClass::Divide:
  case OpClass::Power:
  case OpClass::Less:
  case OpClass::Where:
  case OpClass::Maximum:
  case OpClass::Elementwise:
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
  case OpClass::Clip:
  case OpClass::Transcendental:
  case OpClass::Fill:
    return OpPattern::ElemWise;
  case OpClass::Mean:
  case OpClass::Sum:
  case OpClass::Max:
  case OpClass::Variance:
    return OpPattern::CommReduce;
  }
  return OpPattern::Opaque;
}

std::string_view op_pattern_name(OpPattern p) {
  static constexpr NameTable kNames{
      std::array{std::pair{OpPattern::ElemWise, std::string_view("elemwise")},
                 std::pair{OpPattern::Broadcast, std::string_view("broadcast")},
                 std::pair{OpPattern::Injective, std::string_view("injective")},
                 std::pair{OpPattern::CommReduce, std::string_view("comm_reduce")},
                 std::pair{OpPattern::OutEWiseFusable, std::string_view("out_elemwise_fusable")},
                 std::pair{OpPattern::Tuple, std::string_view("tuple")},
                 std::pair{OpPattern::Opaque, std::string_view("opaque")}}};
  return kNames.name(p);
}

} // namespace lightsim::ir::fusion
