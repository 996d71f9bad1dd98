// Reading of the Relay op attributes that an exporter kept in a TVM node's attrs (strides, padding,
// dilation, kernel_size, pool_size, output_padding, groups, channels, data_layout / layout,
// kernel_layout, ceil_mode; a collective's num_workers) into ir::OpAttrs. TVM's own graph JSON keeps none of
// them; hand-written or converted graphs may. Values may be JSON integers, arrays of integers, or strings TVM
// or Python would print ("[1, 1]", "(2, 2)", "3", "NCHW", "True"). Private to ir/.
//
// It is not a check of the attributes against the shapes: Graph::finalize() does that (ir/op_shapes.h).
#pragma once

#include "ir/graph.h"
#include "ir/tvm/tvm_document.h"

#include <string>

namespace lightsim::ir {

// Reads `item` into `attrs`; keys it does not know are ignored. Throws InputError naming `place` (the
// file and node) and the key when a value is not what the key needs.
void read_op_attr(const TvmDocument& doc, const OpAttrItem& item, OpAttrs& attrs, const std::string& place);

} // namespace lightsim::ir
