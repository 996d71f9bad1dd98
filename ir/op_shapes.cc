#include "ir/op_shapes.h"

#include "ir/error.h"

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string_view>

namespace lightsim::ir {
namespace {

using Shape = std::vector<std::int64_t>;

std::int64_t product(const Shape& shape, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i)
    p *= shape[i];
  return p;
}

// One way of reading (data, weight, output) shapes as a convolution. Dims are indices; -1 = absent.
struct ConvLayout {
  std::string_view data, kernel; // the Relay layout names
  std::size_t data_rank, weight_rank;
  std::array<int, 2> data_c, out_c; // channel dims of data / output (NCHWc: outer and inner)
  std::array<int, 2> w_out, w_in;   // weight dims holding output channels / input channels per group
  std::size_t first_spatial;        // first spatial dim of data and output
  std::size_t w_first_spatial;      // first spatial dim of the weight
  bool transposed = false;          // conv_transpose: w_out holds out channels per group, w_in all inputs
};

constexpr std::array<ConvLayout, 9> kConvLayouts{{
    {"NCW", "OIW", 3, 3, {1, -1}, {1, -1}, {0, -1}, {1, -1}, 2, 2},
    {"NWC", "WIO", 3, 3, {2, -1}, {2, -1}, {2, -1}, {1, -1}, 1, 0},
    {"NCHW", "OIHW", 4, 4, {1, -1}, {1, -1}, {0, -1}, {1, -1}, 2, 2},
    {"NHWC", "HWIO", 4, 4, {3, -1}, {3, -1}, {3, -1}, {2, -1}, 1, 0},
    {"NHWC", "OHWI", 4, 4, {3, -1}, {3, -1}, {0, -1}, {3, -1}, 1, 1},
    {"NHWC", "HWOI", 4, 4, {3, -1}, {3, -1}, {2, 3}, {-1, -1}, 1, 0}, // depthwise: O = channels x multiplier
    {"NCHWc", "OIHWio", 5, 6, {1, 4}, {1, 4}, {0, 5}, {1, 4}, 2, 2},
    {"NCDHW", "OIDHW", 5, 5, {1, -1}, {1, -1}, {0, -1}, {1, -1}, 2, 2},
    {"NDHWC", "DHWIO", 5, 5, {4, -1}, {4, -1}, {4, -1}, {3, -1}, 1, 0},
}};

constexpr std::array<ConvLayout, 3> kConvTransposeLayouts{{
    {"NCW", "IOW", 3, 3, {1, -1}, {1, -1}, {1, -1}, {0, -1}, 2, 2, true},
    {"NCHW", "IOHW", 4, 4, {1, -1}, {1, -1}, {1, -1}, {0, -1}, 2, 2, true},
    {"NCDHW", "IODHW", 5, 5, {1, -1}, {1, -1}, {1, -1}, {0, -1}, 2, 2, true},
}};

std::int64_t dims_product(const Shape& s, const std::array<int, 2>& dims) {
  std::int64_t p = 1;
  for (int d : dims)
    if (d >= 0) p *= s[static_cast<std::size_t>(d)];
  return p;
}

// The operands a rule is tried on, and the message of the positional attempt when no pair fits.
struct Operands {
  const Shape *data, *weight, *out;
  const Tensor* data_tensor;
};

// "data [1, 3, 224, 224], weight [64, 3, 7, 7], output [1, 64, 112, 112]".
std::string operands_text(const Operands& o) {
  return "data " + shape_text(*o.data) + ", weight " + shape_text(*o.weight) + ", output " +
         shape_text(*o.out);
}

// Spatial geometry of one dim, for the attribute checks.
struct SpatialDim {
  std::int64_t in = 0, out = 0, kernel = 0;
};

// `attr` as one value per spatial dim: n values as given, 1 value for all (default when empty).
std::vector<std::int64_t> per_dim(const std::vector<std::int64_t>& attr, std::size_t n, std::int64_t fallback,
                                  const char* name) {
  if (attr.empty()) return std::vector<std::int64_t>(n, fallback);
  if (attr.size() == 1) return std::vector<std::int64_t>(n, attr[0]);
  if (attr.size() != n)
    throw InputError("attrs." + std::string(name) + " " + shape_text(attr) + " has " +
                     std::to_string(attr.size()) + " values for " + std::to_string(n) + " spatial dims");
  return attr;
}

// Relay padding: 1 value (all sides), one per dim (both sides), or before... then after... (2n values).
std::vector<std::int64_t> padding_total(const std::vector<std::int64_t>& pad, std::size_t n) {
  std::vector<std::int64_t> total(n, 0);
  if (pad.empty()) return total;
  for (std::size_t i = 0; i < n; ++i) {
    if (pad.size() == 1)
      total[i] = 2 * pad[0];
    else if (pad.size() == n)
      total[i] = 2 * pad[i];
    else if (pad.size() == 2 * n)
      total[i] = pad[i] + pad[i + n];
    else
      throw InputError("attrs.padding " + shape_text(pad) + " has " + std::to_string(pad.size()) +
                       " values for " + std::to_string(n) + " spatial dims (expected 1, " +
                       std::to_string(n) + " or " + std::to_string(2 * n) + ")");
  }
  return total;
}

void check_positive(const std::vector<std::int64_t>& v, const char* name) {
  for (std::int64_t x : v)
    if (x <= 0) throw InputError("attrs." + std::string(name) + " " + shape_text(v) + " must be positive");
}

// A window's strides and dilation (checked positive) and total padding, one value per spatial dim.
struct WindowAttrs {
  std::vector<std::int64_t> strides, dilation, pad;
};

WindowAttrs window_attrs(const OpAttrs& a, std::size_t n) {
  WindowAttrs w{per_dim(a.strides, n, 1, "strides"), per_dim(a.dilation, n, 1, "dilation"), {}};
  check_positive(w.strides, "strides");
  check_positive(w.dilation, "dilation");
  w.pad = padding_total(a.padding, n);
  return w;
}

// A window (conv kernel or pool) sliding over each spatial dim: it fits the padded input and the stride
// gives the output size. `what` names the window in messages ("kernel", "pool window").
void check_sliding(const std::vector<SpatialDim>& dims, const OpAttrs& a, const char* what) {
  const std::size_t n = dims.size();
  const auto [strides, dilation, pad] = window_attrs(a, n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t extent = dilation[i] * (dims[i].kernel - 1) + 1;
    const std::int64_t padded = dims[i].in + pad[i];
    const std::string dim = "spatial dim " + std::to_string(i);
    if (extent > padded)
      throw InputError(std::string(what) + " extent " + std::to_string(extent) +
                       " exceeds the padded input " + std::to_string(padded) + " (" + dim + ": " +
                       std::to_string(dims[i].in) + " + padding " + std::to_string(pad[i]) + ")");
    const std::int64_t span = padded - extent;
    const std::int64_t expected =
        (a.ceil_mode ? (span + strides[i] - 1) / strides[i] : span / strides[i]) + 1;
    if (expected != dims[i].out)
      throw InputError("output " + dim + " is " + std::to_string(dims[i].out) + ", but a " + what + " of " +
                       std::to_string(dims[i].kernel) + " with stride " + std::to_string(strides[i]) +
                       ", padding " + std::to_string(pad[i]) + " and dilation " +
                       std::to_string(dilation[i]) + " over " + std::to_string(dims[i].in) + " gives " +
                       std::to_string(expected));
  }
}

// A transposed convolution: out = (in - 1) x stride - padding + dilation x (kernel - 1) + output_padding + 1.
void check_transposed(const std::vector<SpatialDim>& dims, const OpAttrs& a) {
  const std::size_t n = dims.size();
  const auto [strides, dilation, pad] = window_attrs(a, n);
  const std::vector<std::int64_t> extra = per_dim(a.output_padding, n, 0, "output_padding");
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t expected =
        (dims[i].in - 1) * strides[i] - pad[i] + dilation[i] * (dims[i].kernel - 1) + extra[i] + 1;
    if (expected != dims[i].out)
      throw InputError("output spatial dim " + std::to_string(i) + " is " + std::to_string(dims[i].out) +
                       ", but a transposed kernel of " + std::to_string(dims[i].kernel) + " with stride " +
                       std::to_string(strides[i]) + ", padding " + std::to_string(pad[i]) +
                       " and output padding " + std::to_string(extra[i]) + " over " +
                       std::to_string(dims[i].in) + " gives " + std::to_string(expected));
  }
}

bool has_sliding_attrs(const OpAttrs& a) {
  return !a.strides.empty() || !a.padding.empty() || !a.dilation.empty();
}

// A convolution read with layout `L`; nullopt when the shapes do not have its ranks or its output channels
// (another layout may fit), an InputError when they do but contradict each other.
std::optional<GemmView> conv_with(const ConvLayout& L, const Operands& o, const OpAttrs* attrs) {
  const Shape &d = *o.data, &w = *o.weight, &out = *o.out;
  if (d.size() != L.data_rank || w.size() != L.weight_rank || out.size() != L.data_rank) return std::nullopt;
  const std::int64_t c_in = dims_product(d, L.data_c), c_out = dims_product(out, L.out_c);
  const std::int64_t w_out = dims_product(w, L.w_out);
  const std::int64_t w_in = L.w_in[0] < 0 ? 1 : dims_product(w, L.w_in);
  const std::size_t spatial = L.data_rank - (L.data_c[1] >= 0 ? 3 : 2);
  const std::string layout = std::string(L.data) + "/" + std::string(L.kernel);
  std::int64_t groups = 0;
  if (!L.transposed) {
    if (w_out != c_out) return std::nullopt;
    if (w_in <= 0 || c_in % w_in != 0)
      throw InputError("input channels " + std::to_string(c_in) + " are not a multiple of the weight's " +
                       std::to_string(w_in) + " input channels per group (" + layout + ")");
    groups = c_in / w_in;
  } else {
    if (w_in != c_in || w_out <= 0 || c_out % w_out != 0) return std::nullopt;
    groups = c_out / w_out;
  }
  if (groups <= 0 || c_out % groups != 0 || c_in % groups != 0)
    throw InputError("channels in " + std::to_string(c_in) + " / out " + std::to_string(c_out) +
                     " do not split into " + std::to_string(groups) + " groups (" + layout + ")");
  if (d[0] != out[0])
    throw InputError("output batch " + std::to_string(out[0]) + " differs from the data's " +
                     std::to_string(d[0]));
  std::vector<SpatialDim> dims(spatial);
  std::int64_t kernel_pixels = 1, in_pixels = 1, out_pixels = 1;
  for (std::size_t i = 0; i < spatial; ++i) {
    dims[i] = {d[L.first_spatial + i], out[L.first_spatial + i], w[L.w_first_spatial + i]};
    kernel_pixels *= dims[i].kernel;
    in_pixels *= dims[i].in;
    out_pixels *= dims[i].out;
    if (dims[i].out <= 0 || dims[i].kernel <= 0) throw InputError("empty output or kernel (" + layout + ")");
  }
  if (attrs) {
    if (attrs->groups > 0 && attrs->groups != groups)
      throw InputError(attrs->groups > 0 && c_in % attrs->groups != 0
                           ? "attrs.groups " + std::to_string(attrs->groups) +
                                 " does not divide the input channels " + std::to_string(c_in)
                           : "attrs.groups is " + std::to_string(attrs->groups) + " but the shapes give " +
                                 std::to_string(groups) + " groups (" + layout + ")");
    if (attrs->channels > 0 && attrs->channels != c_out)
      throw InputError("attrs.channels is " + std::to_string(attrs->channels) + " but the output has " +
                       std::to_string(c_out) + " channels");
    if (!attrs->kernel_size.empty()) {
      const std::vector<std::int64_t> ks = per_dim(attrs->kernel_size, spatial, 1, "kernel_size");
      for (std::size_t i = 0; i < spatial; ++i)
        if (ks[i] != dims[i].kernel)
          throw InputError("attrs.kernel_size " + shape_text(attrs->kernel_size) +
                           " differs from the weight's " + "kernel " + std::to_string(dims[i].kernel) +
                           " in spatial dim " + std::to_string(i) + " (" + layout + ")");
    }
    if (!L.transposed && has_sliding_attrs(*attrs)) check_sliding(dims, *attrs, "kernel");
    if (L.transposed && (has_sliding_attrs(*attrs) || !attrs->output_padding.empty()))
      check_transposed(dims, *attrs);
  }
  GemmView v;
  v.batch = groups;
  if (!L.transposed) {
    v.m = d[0] * out_pixels;
    v.n = c_out / groups;
    v.k = w_in * kernel_pixels;
    const double patch = static_cast<double>(v.batch) * static_cast<double>(v.m) * static_cast<double>(v.k);
    const double data =
        static_cast<double>(d[0]) * static_cast<double>(c_in) * static_cast<double>(in_pixels);
    const double bytes_per_element =
        o.data_tensor->elements
            ? static_cast<double>(o.data_tensor->bytes) / static_cast<double>(o.data_tensor->elements)
            : 0.0;
    v.im2col_extra_bytes = std::max(0.0, patch - data) * bytes_per_element;
  } else {
    v.m = d[0] * in_pixels;
    v.n = c_out / groups * kernel_pixels;
    v.k = c_in / groups;
  }
  return v;
}

GemmView conv(const Operands& o, const OpAttrs* attrs, bool transposed) {
  const auto layouts = transposed ? std::span<const ConvLayout>(kConvTransposeLayouts)
                                  : std::span<const ConvLayout>(kConvLayouts);
  const bool named = attrs && !attrs->data_layout.empty();
  std::optional<InputError> first_error; // of the first layout whose ranks and output channels fit
  for (const ConvLayout& L : layouts) {
    if (named && attrs->data_layout != L.data &&
        !(L.data == "NCHWc" && attrs->data_layout.starts_with("NCHW") && attrs->data_layout.size() > 4))
      continue;
    if (named && !attrs->kernel_layout.empty() && L.kernel != "OIHWio" && attrs->kernel_layout != L.kernel)
      continue;
    try {
      if (std::optional<GemmView> v = conv_with(L, o, attrs)) return *v;
    } catch (const InputError& e) {
      if (!first_error) first_error = e;
    }
  }
  if (first_error) throw *first_error;
  std::string names;
  for (const ConvLayout& L : layouts)
    names.append(names.empty() ? "" : ", ").append(L.data).append("/").append(L.kernel);
  throw InputError("shapes (" + operands_text(o) + ") fit none of the layouts " + names +
                   (named ? " named by attrs.data_layout " + attrs->data_layout : std::string()));
}

// data [.., m, k] x weight (n x k elements: [n, k], or dense_pack's [n/bn, k, bn]) -> [.., m, n].
GemmView dense(const Operands& o) {
  const Shape &data = *o.data, &weight = *o.weight, &out = *o.out;
  if (data.empty() || out.empty()) throw InputError("data and output must have rank >= 1");
  GemmView v{1, product(data, 0, data.size() - 1), out.back(), data.back()};
  if (product(out, 0, out.size() - 1) != v.m) throw InputError("output rows differ from data rows");
  if (weight.size() == 3) { // dense_pack
    if (weight[1] != v.k || weight[0] * weight[2] != v.n)
      throw InputError(
          "dense_pack weight " + shape_text(weight) + " packs " + std::to_string(weight[0]) + " x " +
          std::to_string(weight[2]) + " = " + std::to_string(weight[0] * weight[2]) + " outputs of " +
          std::to_string(weight[1]) + " inputs, but the op has n = " + std::to_string(v.n) +
          " outputs of k = " + std::to_string(v.k) + " (packing " + std::to_string(weight[2]) +
          (v.n % std::max<std::int64_t>(weight[2], 1) ? " does not divide" : " divides") + " n)");
    return v;
  }
  if (weight.size() < 2 || product(weight, 0, weight.size()) != v.n * v.k)
    throw InputError("weight does not hold n x k = " + std::to_string(v.n) + " x " + std::to_string(v.k) +
                     " elements");
  return v;
}

// [b, m, k] x [b, n, k] (transpose_b, TVM's default) or [b, k, n] -> [b, m, n].
GemmView batch_matmul(const Operands& o) {
  const Shape &a = *o.data, &b = *o.weight, &out = *o.out;
  if (a.size() < 2 || b.size() < 2 || out.size() < 2)
    throw InputError("operands and output must have rank >= 2");
  GemmView v{product(out, 0, out.size() - 2), a[a.size() - 2], out.back(), a.back()};
  if (out[out.size() - 2] != v.m) throw InputError("output rows differ from the first operand's");
  const std::int64_t b_rows = b[b.size() - 2], b_cols = b.back();
  const bool transposed = b_cols == v.k && b_rows == v.n;
  const bool plain = b_rows == v.k && b_cols == v.n;
  if (!transposed && !plain) throw InputError("second operand is neither [.., n, k] nor [.., k, n]");
  return v;
}

GemmView view_of(OpClass c, const Operands& o, const OpAttrs* attrs) {
  switch (c) {
  case OpClass::Dense:
    return dense(o);
  case OpClass::BatchMatmul:
    return batch_matmul(o);
  case OpClass::Conv2dTranspose:
    return conv(o, attrs, true);
  default:
    return conv(o, attrs, false);
  }
}

// dense / batch_matmul whose output a fused reshape changed: the view from the operands alone, when the
// output holds exactly its m x n (x batch) elements.
std::optional<GemmView> reshaped_product(OpClass c, const Operands& o, std::uint64_t out_elements) {
  const Shape &a = *o.data, &b = *o.weight;
  if (a.empty() || b.size() < 2) return std::nullopt;
  GemmView v;
  if (c == OpClass::Dense) {
    const std::int64_t k = a.back(), weights = product(b, 0, b.size());
    if (k <= 0 || weights % k != 0) return std::nullopt;
    v = {1, product(a, 0, a.size() - 1), weights / k, k};
  } else {
    if (a.size() < 2 || b.size() != a.size()) return std::nullopt;
    const std::int64_t k = a.back(), rows = b[b.size() - 2], cols = b.back();
    v = {product(a, 0, a.size() - 2), a[a.size() - 2], cols == k ? rows : rows == k ? cols : 0, k};
    if (v.n == 0 || product(b, 0, b.size() - 2) != v.batch) return std::nullopt;
  }
  if (static_cast<double>(v.batch) * static_cast<double>(v.m) * static_cast<double>(v.n) !=
      static_cast<double>(out_elements))
    return std::nullopt;
  return v;
}

const Tensor& tensor_of(const Graph& g, TensorId t) {
  return g.tensors[static_cast<std::size_t>(t)];
}

} // namespace

GemmView gemm_view(const Graph& g, const Op& op) {
  if (op.inputs.size() < 2 || op.outputs.empty())
    throw InputError(std::string(op_class_name(op.op_class)) +
                     ": needs at least 2 inputs and 1 output, has " + std::to_string(op.inputs.size()) +
                     " and " + std::to_string(op.outputs.size()));
  const Shape& out = tensor_of(g, op.outputs[0]).shape;
  const auto operands = [&](std::size_t i, std::size_t j) {
    const Tensor& data = tensor_of(g, op.inputs[i]);
    return Operands{&data.shape, &tensor_of(g, op.inputs[j]).shape, &out, &data};
  };
  try {
    return view_of(op.op_class, operands(0, 1), op.attrs.get());
  } catch (const InputError& positional) {
    // A fused node may list a scale or a bias before the weight: the first other pair that fits.
    const std::size_t n = std::min<std::size_t>(op.inputs.size(), 8);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j || (i == 0 && j == 1)) continue;
        try {
          return view_of(op.op_class, operands(i, j), op.attrs.get());
        } catch (const InputError&) {
        }
      }
    // A fused tail may have reshaped a matrix product's output: its element count still tells n.
    if (op.op_class == OpClass::Dense || op.op_class == OpClass::BatchMatmul)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
          if (i != j)
            if (std::optional<GemmView> v =
                    reshaped_product(op.op_class, operands(i, j), tensor_of(g, op.outputs[0]).elements))
              return *v;
    std::string text(op_class_name(op.op_class));
    text.append(": ").append(positional.what()).append(" (inputs");
    for (TensorId t : op.inputs)
      text.append(" ").append(shape_text(tensor_of(g, t).shape));
    throw InputError(text + ", output " + shape_text(out) + ")");
  }
}

void check_pool(const Graph& g, const Op& op) {
  const OpAttrs* a = op.attrs.get();
  if (!a || a->pool_size.empty() || op.inputs.empty() || op.outputs.empty())
    return; // nothing to check against
  const Shape& in = tensor_of(g, op.inputs[0]).shape;
  const Shape& out = tensor_of(g, op.outputs[0]).shape;
  const auto fail = [&](const std::string& what) {
    throw InputError("pool: " + what + " (input " + shape_text(in) + ", output " + shape_text(out) + ")");
  };
  // Spatial dims follow N, C (NCHW, and NCHWc whose inner channel block is last) or N (NHWC, NDHWC).
  const std::string& layout = a->data_layout;
  const bool channels_last = layout.size() >= 3 && layout.back() == 'C' && layout[1] != 'C';
  const std::size_t n = a->pool_size.size(), first = channels_last ? 1 : 2;
  if (in.size() != out.size() || first + n > in.size())
    fail("attrs.pool_size " + shape_text(a->pool_size) + " does not fit the input's rank");
  const std::size_t channel_dim = channels_last ? in.size() - 1 : 1;
  if (in[0] != out[0] || in[channel_dim] != out[channel_dim]) fail("batch or channels change");
  std::vector<SpatialDim> dims(n);
  for (std::size_t i = 0; i < n; ++i)
    dims[i] = {in[first + i], out[first + i], a->pool_size[i]};
  try {
    check_positive(a->pool_size, "pool_size");
    check_sliding(dims, *a, "pool window");
  } catch (const InputError& e) {
    fail(e.what());
  }
}

} // namespace lightsim::ir
