// lightsim-graph: writes the TVM graph-executor JSON of one inference step of a GPT-2 or Llama-2 style
// model, or one forward pass of a CNN (ResNet, MobileNet-v2) or encoder (BERT, ViT), as TVM (Relay,
// opt_level 0, no fusion) would export it, for any sequence length and batch; with --fuse tvm as a fused
// build (TVM's FuseOps rules, fused functions named as TVM names them, ir/fusion/fusion.h), with --fuse
// flash also with fused attention.
//
//   lightsim-graph --model llama2-7b --phase prefill --seq 128 -o llama.json
//   lightsim-graph --model gpt2 --phase decode --seq 6 -o gpt2_decode.json   (5 cached tokens + 1 new)
//   lightsim-graph --model llama2-7b --seq 128 --fuse tvm -o llama_fused.json
//   lightsim-graph --model resnet50 --batch 8 -o resnet50.json
//   lightsim-graph --model bert-base --seq 128 -o bert.json
//   lightsim-graph --model llama2-7b --seq 256 --merge-projections --tensor-parallel 2 -o shard.json
//     (vLLM's fused QKV and gate+up projections; one of two Megatron tensor-parallel shards)
//   lightsim-graph --model llama2-7b --seq 256 --tensor-parallel 8 --all-reduces -o shard8.json
//     (the shard with its all-reduces: run it on configs/a100x8.json)
//
// Bad parameters print one line on stderr and exit with status 2; no output file is left behind.
#include "ir/error.h"
#include "ir/fusion/fusion.h"
#include "ir/graphgen/builder.h"
#include "ir/graphgen/graph_writer.h"
#include "ir/graphgen/tvm_lower.h"
#include "ir/graphgen/tvm_writer.h"
#include "ir/onnx/onnx_writer.h"
#include "ir/tvm/tvm_import.h"
#include "sim/cli/fuse_option.h"
#include "sim/cli/tool_main.h"
#include "sim/io/atomic_file.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

namespace {

using namespace lightsim::ir;
using namespace lightsim::ir::graphgen;

std::string model_names() {
  std::string names;
  for (const ModelSpec& m : builtin_models()) {
    if (!names.empty()) names += ", ";
    names += m.name;
  }
  return names;
}

int run(int argc, char** argv) {
  CLI::App app{"lightsim-graph: TVM graph-executor JSON for LLM, CNN and encoder inference steps"};
  std::string model_name, config_path, phase_text = "prefill", dtype_text = "float32", output;
  std::int64_t batch = 1, tensor_parallel = 1;
  bool merge_projections = false, all_reduces = false;
  std::optional<std::int64_t> seq, past, layers;
  app.add_option("--model", model_name, "built-in model: " + model_names());
  app.add_option("--config", config_path, "Hugging Face style config.json with the hyper-parameters");
  app.add_option("--phase", phase_text, "prefill | decode")->capture_default_str();
  app.add_option("--seq", seq,
                 "tokens in the context after this step (decode: cached + new); BERT: its tokens; not for "
                 "image models");
  app.add_option("--past", past, "decode: tokens in the KV cache (default seq-1, i.e. one new token)");
  app.add_option("--batch", batch, "batch size")->capture_default_str();
  app.add_option("--dtype", dtype_text,
                 "float32 | float16 | int8 | int4 | int2 (weights and activations; int4 and int2 packed)")
      ->capture_default_str();
  std::string weight_dtype_text;
  app.add_option("--weight-dtype", weight_dtype_text,
                 "mixed precision: the weights' dtype (same choices), the activations keeping --dtype");
  app.add_option("--layers", layers, "number of layers (default: the model's)");
  std::optional<fusion::FuseMode> fuse;
  int max_depth = fusion::CompilerConfig{}.max_depth;
  lightsim::add_fuse_option(app, fuse);
  app.add_option("--max-depth", max_depth, "most ops in one fused group (TVM's relay.FuseOps.max_depth)")
      ->capture_default_str();
  app.add_flag("--merge-projections", merge_projections,
               "vLLM-style fused projections: q, k, v as one dense and gate, up as one dense, each then "
               "split (GPT-2's QKV is fused already)");
  app.add_option("--tensor-parallel", tensor_parallel,
                 "the graph of one of T Megatron tensor-parallel shards: heads, FFN columns and vocabulary "
                 "divided by T, all-reduces left out unless --all-reduces")
      ->capture_default_str();
  app.add_flag("--all-reduces", all_reduces,
               "with --tensor-parallel: write the shard's all-reduces (after the embedding and each "
               "row-parallel projection; ccl_allreduce nodes, attrs num_workers), which a config with T "
               "devices of one kind runs on its links");
  std::string format = "tvm";
  app.add_option(
         "--format", format,
         "tvm (graph-executor JSON) | onnx (an ONNX model, shapes only: weights are external references to "
         "a file that is not written; unfused graphs only)")
      ->capture_default_str();
  app.add_option("-o,--output", output, "output file")->required();
  if (const auto status = lightsim::parse_command_line(app, argc, argv, "lightsim-graph")) return *status;

  GraphRequest request;
  if (!config_path.empty() && !model_name.empty())
    throw lightsim::InputError("give either --model or --config, not both");
  if (!config_path.empty())
    request.model = load_model_config(config_path);
  else if (!model_name.empty())
    request.model = builtin_model(model_name);
  else
    throw lightsim::InputError("--model or --config is required");
  const std::optional<Phase> phase = parse_phase(phase_text);
  if (!phase) throw lightsim::InputError("--phase must be prefill or decode, got '" + phase_text + "'");
  request.phase = *phase;
  const auto model_dtype = [](const std::string& flag, const std::string& text) {
    const std::optional<DType> t = parse_dtype(text);
    if (!t || (*t != DType::Float32 && *t != DType::Float16 && *t != DType::Int8 && *t != DType::Int4 &&
               *t != DType::Int2))
      throw lightsim::InputError(flag + " must be float32, float16, int8, int4 or int2, got '" + text + "'");
    return *t;
  };
  request.dtype = model_dtype("--dtype", dtype_text);
  if (!weight_dtype_text.empty()) request.weight_dtype = model_dtype("--weight-dtype", weight_dtype_text);
  if (!seq && takes_sequence(request.model.family))
    throw lightsim::InputError("--seq is required for " + request.model.name);
  request.seq = seq.value_or(0);
  request.past = past;
  request.batch = batch;
  request.layers = layers;
  request.merge_projections = merge_projections;
  request.tensor_parallel = tensor_parallel;
  request.all_reduces = all_reduces;

  if (max_depth < 1)
    throw lightsim::InputError("--max-depth must be at least 1, got " + std::to_string(max_depth));

  if (format != "tvm" && format != "onnx")
    throw lightsim::InputError("--format must be tvm or onnx, got '" + format + "'");
  if (format == "onnx" && all_reduces)
    throw lightsim::InputError("--format onnx has no all-reduce op: leave out --all-reduces");
  if (format == "onnx" && fuse.value_or(fusion::FuseMode::None) != fusion::FuseMode::None)
    throw lightsim::InputError("--format onnx writes unfused graphs: leave out --fuse");
  if (format == "onnx" &&
      (dtype_packed(request.dtype) || (request.weight_dtype && dtype_packed(*request.weight_dtype))))
    throw lightsim::InputError("--format onnx has no int4 or int2 (the onnx.proto lightsim builds with "
                               "predates ONNX's 4-bit types): use --format tvm");

  lightsim::AtomicOutput out(output, "graph"); // a bad output path fails before the graph is built
  const ExprGraph graph = build_model_graph(request);
  if (format == "onnx") {
    // The graph as lightsim imports its TVM form, written as ONNX (ir/onnx/onnx_writer.h).
    std::ostringstream text;
    write_tvm_graph(lower_to_tvm(graph), text);
    write_onnx_graph(import_tvm_graph_text(text.str(), output).graph, out.stream(), output + ".weights");
  } else if (fuse.value_or(fusion::FuseMode::None) == fusion::FuseMode::None) {
    write_tvm_graph(lower_to_tvm(graph), out.stream());
  } else {
    // The unfused graph as lightsim imports it, then the fusion pass, then the fused graph's JSON.
    std::ostringstream text;
    write_tvm_graph(lower_to_tvm(graph), text);
    Graph unfused = import_tvm_graph_text(text.str(), output).graph;
    write_graph(fusion::fuse(std::move(unfused), {*fuse, max_depth}).graph, out.stream());
  }
  out.commit();
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return lightsim::run_reporting_errors("lightsim-graph", [&] {
    try {
      return run(argc, argv);
    } catch (const std::bad_alloc&) {
      throw lightsim::InputError("out of memory (the requested graph is too large)");
    }
  });
}
