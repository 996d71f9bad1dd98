// Shape rules of the ops whose work is more than the size of their tensors: the GEMM view of matrix
// products and convolutions (implicit GEMM; layouts told apart by the shapes, or by the layout attributes
// when the node kept them), a convolution's patch (im2col) matrix, and the checks of convolution and
// pooling attributes against the shapes. Used by Graph::finalize().
//
// Layouts: conv NCW/OIW, NWC/WIO, NCHW/OIHW, NHWC/HWIO, NHWC/OHWI, NHWC/HWOI (depthwise), NCHWc/OIHWio,
// NCDHW/OIDHW, NDHWC/DHWIO; conv_transpose NCW/IOW, NCHW/IOHW, NCDHW/IODHW (PyTorch's and Relay's
// default). In a fused node the data and weight are found among the inputs (the first pair that fits), and
// a dense / batch_matmul output that a fused reshape changed is read by its element count.
//
// It is not a cost model: it counts, and throws InputError (without the op's place, which the caller
// adds) when shapes or attributes contradict each other.
#pragma once

#include "ir/graph.h"

#include <cstdint>

namespace lightsim::ir {

struct GemmView {
  std::int64_t batch = 0, m = 0, n = 0, k = 0;
  double im2col_extra_bytes = 0; // convolutions: see OpFeatures
};

// The GEMM view of a GEMM-like op (dense, batch_matmul, conv2d, conv2d_transpose), its attributes
// checked against its shapes.
GemmView gemm_view(const Graph& graph, const Op& op);

// Pooling with a pool_size attribute (a fused pool may reshape its output, so nothing is checked
// without one): batch and channels kept, the window fits the padded input and, with the strides, padding
// and dilation, gives the output size.
void check_pool(const Graph& graph, const Op& op);

} // namespace lightsim::ir
