// ResNet-18 / ResNet-50 (torchvision, v1.5: the stride of a bottleneck sits on its 3x3 conv) and
// MobileNet-v2 (torchvision) at 224x224, as TVM's PyTorch front end imports the traced eval-mode module
// (ir/graphgen/builder_torch.h): convolutions without bias, each followed by its decomposed batch norm.
// Input `input0` [N, 3, 224, 224]; output the logits [N, classes].
#include "ir/graphgen/builder_parts.h"
#include "ir/graphgen/builder_torch.h"

namespace lightsim::ir::graphgen::detail {
namespace {

// torchvision BasicBlock: 3x3 (stride) - bn - relu - 3x3 - bn, + identity (or a 1x1 stride conv + bn), relu.
ExprRef basic_block(TorchOps& t, ExprRef x, std::int64_t planes, std::int64_t stride) {
  const std::int64_t in = t.base().shape(x)[1];
  ExprRef out = t.relu(t.batch_norm(t.conv2d(x, planes, 3, stride, 1)));
  out = t.batch_norm(t.conv2d(out, planes, 3, 1, 1));
  const ExprRef identity = stride != 1 || in != planes ? t.batch_norm(t.conv2d(x, planes, 1, stride, 0)) : x;
  return t.relu(t.base().binary("add", out, identity));
}

// torchvision Bottleneck (v1.5): 1x1 - bn - relu - 3x3 (stride) - bn - relu - 1x1 (x4) - bn, + identity,
// relu.
ExprRef bottleneck(TorchOps& t, ExprRef x, std::int64_t planes, std::int64_t stride) {
  const std::int64_t in = t.base().shape(x)[1], expanded = planes * 4;
  ExprRef out = t.relu(t.batch_norm(t.conv2d(x, planes, 1, 1, 0)));
  out = t.relu(t.batch_norm(t.conv2d(out, planes, 3, stride, 1)));
  out = t.batch_norm(t.conv2d(out, expanded, 1, 1, 0));
  const ExprRef identity =
      stride != 1 || in != expanded ? t.batch_norm(t.conv2d(x, expanded, 1, stride, 0)) : x;
  return t.relu(t.base().binary("add", out, identity));
}

// Conv2dNormActivation with ReLU6 (aten::hardtanh: clip 0..6).
ExprRef conv_bn_relu6(TorchOps& t, ExprRef x, std::int64_t out, std::int64_t kernel, std::int64_t stride,
                      std::int64_t groups = 1) {
  return t.clip(t.batch_norm(t.conv2d(x, out, kernel, stride, (kernel - 1) / 2, groups)), 0.0, 6.0);
}

// torchvision InvertedResidual: [1x1 expand - bn - relu6] - 3x3 depthwise - bn - relu6 - 1x1 project - bn,
// + x when the stride is 1 and the channels stay.
ExprRef inverted_residual(TorchOps& t, ExprRef x, std::int64_t out, std::int64_t stride,
                          std::int64_t expand) {
  const std::int64_t in = t.base().shape(x)[1], hidden = in * expand;
  ExprRef y = x;
  if (expand != 1) y = conv_bn_relu6(t, y, hidden, 1, 1);
  y = conv_bn_relu6(t, y, hidden, 3, stride, hidden);
  y = t.batch_norm(t.conv2d(y, out, 1, 1, 0));
  return stride == 1 && in == out ? t.base().binary("add", x, y) : y;
}

ExprRef classifier(TorchOps& t, ExprRef features, std::int64_t classes) {
  return t.linear(t.flatten_1x1(t.adaptive_avg_pool2d_1x1(features)), classes);
}

} // namespace

void build_resnet(ExprGraph& g, const GraphRequest& r, const StepShape&) {
  const ModelSpec& m = r.model;
  BuilderOps b(g, r.dtype, r.weight_dtype);
  TorchOps t(b);
  const ExprRef image = b.input("input0", {r.batch, 3, m.image_size, m.image_size}, r.dtype);
  ExprRef x = t.max_pool2d(t.relu(t.batch_norm(t.conv2d(image, 64, 7, 2, 3))), 3, 2, 1);
  const std::int64_t planes[4] = {64, 128, 256, 512};
  for (std::size_t stage = 0; stage < m.stage_blocks.size(); ++stage)
    for (std::int64_t i = 0; i < m.stage_blocks[stage]; ++i) {
      const std::int64_t stride = stage > 0 && i == 0 ? 2 : 1;
      x = m.bottleneck ? bottleneck(t, x, planes[stage], stride) : basic_block(t, x, planes[stage], stride);
    }
  g.add_output(classifier(t, x, m.classes));
}

void build_mobilenet_v2(ExprGraph& g, const GraphRequest& r, const StepShape&) {
  const ModelSpec& m = r.model;
  BuilderOps b(g, r.dtype, r.weight_dtype);
  TorchOps t(b);
  const ExprRef image = b.input("input0", {r.batch, 3, m.image_size, m.image_size}, r.dtype);
  ExprRef x = conv_bn_relu6(t, image, 32, 3, 2);
  // (expansion t, channels c, repeats n, stride s) of Sandler et al. 2018, Table 2.
  constexpr std::int64_t kSettings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                            {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (const auto& s : kSettings)
    for (std::int64_t i = 0; i < s[2]; ++i)
      x = inverted_residual(t, x, s[1], i == 0 ? s[3] : 1, s[0]);
  x = conv_bn_relu6(t, x, 1280, 1, 1);
  g.add_output(classifier(t, x, m.classes)); // the classifier's dropout is gone at inference
}

} // namespace lightsim::ir::graphgen::detail
