// Builder: the expression graph of one inference step (prefill or decode) of a GPT-2 or Llama-2 style
// model, op by op as TVM's Relay importer produces it from the Hugging Face model exported to ONNX (the
// structure of the real exports in ../shared/models, generalised to any length, batch, dtype and size); or
// of one forward pass of a CNN (ResNet, MobileNet-v2) or encoder (BERT, ViT) as TVM's PyTorch front end
// imports the torchvision / Hugging Face module (cnn_builder.cc, encoder_builder.cc).
//
// Decoder outputs: the logits, then per layer the new key and value cache (present_k_i, present_v_i).
// Grouped-query attention (kv heads < heads, e.g. llama2-70b) repeats each key/value head heads/kv_heads
// times before the attention matmuls, as HF's repeat_kv does; see builder_gqa in llama_builder.cc.
//
// It is not the TVM lowering (ir/graphgen/tvm_lower.h) nor a writer.
#pragma once

#include "ir/graphgen/expr_graph.h"
#include "ir/graphgen/model_spec.h"

namespace lightsim::ir::graphgen {

// Validates the request (InputError on bad parameters or sizes that overflow) and builds the graph.
ExprGraph build_model_graph(const GraphRequest& request);

} // namespace lightsim::ir::graphgen
