// Shape rules: what the profiler must know about an op that TVM's graph JSON does not say. The graph
// executor JSON keeps no op attributes (no transpose axes, no reduction axes, no slice bounds), so they are
// inferred from the input and output shapes. Every rule is deterministic; where shapes admit more than one
// answer the choice is documented below, and it changes only which equal-sized axes are exchanged, never
// how many bytes move.
//
// It is not shape checking for the importer: ir/ validates the file; these functions throw InputError
// only when shapes cannot be read as the op at all.
#pragma once

#include "sim/profile/buffer.h"
#include "sim/profile/native_api.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lightsim::profile {

// Row-major strides (in elements) of a dense tensor.
LIGHTSIM_NATIVE_API std::vector<std::int64_t> contiguous_strides(const Shape& shape);

// transpose: out[j] = in[perm[j]]. Axes are matched by size, left to right, each input axis used once.
// Ambiguity: when several input axes have the same size, first-unused matching can give the identity; a
// transpose op is never the identity in a TVM export, so then equal-sized axes longer than 1 are matched
// in reverse order instead (e.g. GPT-2 at 12 tokens with 12 heads: [1,12,12,64] -> [1,12,12,64] is read as
// perm (0,2,1,3)). Throws when the output is not a permutation of the input's shape.
LIGHTSIM_NATIVE_API std::vector<int> infer_permutation(const Shape& in, const Shape& out,
                                                       const std::string& where);

// mean / sum: which input axes are reduced. Same rank (keepdims): the axes where the output is 1 and the
// input is not. Lower rank: output axes are matched to input axes left to right; the unmatched input axes
// are reduced. A scalar output reduces everything.
LIGHTSIM_NATIVE_API std::vector<bool> infer_reduced_axes(const Shape& in, const Shape& out,
                                                         const std::string& where);

// mean / sum as passes over [outer, reduced, inner] views, one per run of adjacent reduced axes (size-1
// axes ignored), innermost run first; each pass reads the previous pass's output. `count` gets how many
// input elements each output element sums. No passes: the reduction is a copy.
struct ReducePass {
  std::int64_t outer, reduced, inner;
};
LIGHTSIM_NATIVE_API std::vector<ReducePass>
plan_reduce_passes(const Shape& in, const std::vector<bool>& reduced, std::int64_t& count);

// concatenate (and split, with the roles of inputs and outputs exchanged): the one axis along which the
// parts' sizes add up to the whole; the other axes must agree. With a single part, axis 0.
LIGHTSIM_NATIVE_API int infer_concat_axis(const std::vector<Shape>& parts, const Shape& whole,
                                          const std::string& where);

// take(data, indices): the axis a with out == data[:a] + indices + data[a+1:]; -1 when instead
// out == indices (TVM's take without an axis, over the flattened data).
LIGHTSIM_NATIVE_API int infer_take_axis(const Shape& data, const Shape& indices, const Shape& out,
                                        const std::string& where);

// strided_slice: the graph keeps no begin/end/strides, so the slice is read as begin 0, stride 1 on every
// axis (out[d] <= in[d]). The bytes copied are the same for any begin with stride 1 (e.g. Llama's two
// halves of rotate_half).
LIGHTSIM_NATIVE_API void check_slice(const Shape& in, const Shape& out, const std::string& where);

LIGHTSIM_NATIVE_API std::string shape_text(const Shape& shape); // "[1,5,768]"

} // namespace lightsim::profile
