// OpPattern: TVM's classification of an operator for fusion (TOpPattern, include/tvm/relay/op_attr_types.h),
// given to every lightsim op class. The order matters: the fusion rules compare patterns with < and >.
//   ElemWise         out[i] = f(in[i])                         relu, exp, rsqrt, cast
//   Broadcast        elementwise with broadcasting inputs        add, multiply, power, where, less
//   Injective        every output element from one input element reshape, transpose, take, concatenate
//   CommReduce       a commutative reduction                      mean, sum
//   OutEWiseFusable  a complex op whose output can take an elementwise epilogue (TVM's "anchor")
//                                                                dense, batch_matmul, conv2d, pools, softmax
//   Tuple            a tuple of tensors (virtual here: concatenate's argument tuple, the graph's outputs)
//   Opaque           never fused                                 unknown ops, graph inputs, non-scalar
//   constants
// The values are TVM's (kTuple = 7, kOpaque = 8). The patterns of the op classes are those TVM registers
// with set_attr<TOpPattern> / register_pattern for the Relay operators each class stands for.
//
// It is not the fusion pass: ir/fusion/fuse_ops.h applies the rules.
#pragma once

#include "ir/op_class.h"

#include <cstdint>
#include <string_view>

namespace lightsim::ir::fusion {

enum class OpPattern : std::uint8_t {
  ElemWise = 0,
  Broadcast = 1,
  Injective = 2,
  CommReduce = 3,
  OutEWiseFusable = 4,
  Tuple = 7,
  Opaque = 8,
};

// The pattern of an op class (for Input: the pattern of a per-run input or non-scalar constant, Opaque;
// the pass gives simple scalar constants ElemWise as TVM does).
OpPattern op_pattern(OpClass c);

std::string_view op_pattern_name(OpPattern p); // "elemwise", "broadcast", ... (TVM's OpPatternKind names)

} // namespace lightsim::ir::fusion
