#include "ir/import/graph_import.h"

#include "ir/onnx/onnx_import.h"
#include "ir/tvm/tvm_import.h"

#include <fstream>

namespace lightsim::ir {

GraphFormat sniff_graph_format(std::string_view head) {
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] == '{') return GraphFormat::TvmJson;
  return GraphFormat::Onnx;
}

ImportResult import_graph_file(const std::string& path, const ImportOptions& options) {
  std::string head(256, '\0');
  {
    std::ifstream in(path, std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount())); // a missing file: the importer says so
  }
  if (sniff_graph_format(head) == GraphFormat::Onnx) return import_onnx_file(path, options);
  ImportResult result = import_tvm_graph_file(path, options);
  for (const auto& [name, value] : options.dims)
    result.warnings.push_back(path + ": --dim " + name + "=" + std::to_string(value) +
                              " ignored: a TVM graph has no symbolic dimensions");
  return result;
}

} // namespace lightsim::ir
