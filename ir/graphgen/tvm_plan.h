// TVM graph-executor codegen helpers shared by lightsim-graph's lowering (ir/graphgen/tvm_lower.h) and the
// writer of fused graphs (ir/graphgen/graph_writer.h): TVM's storage planner (GraphPlanMemory) and the
// stand-in for TVM's function hash. Internal to ir/graphgen.
//
// It is not the writer: it assigns storage ids and hashes, and emits no JSON (ir/graphgen/tvm_writer.h does).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lightsim::ir::graphgen::detail {

// 16 hex digits of FNV-1a over `text` (TVM hashes the primitive function; the value is opaque to readers).
std::string fnv1a_hex(const std::string& text);

// TVM's GraphPlanMemory (StorageAllocator) on the node order.
class StoragePlanner {
public:
  // A block that is never released (inputs, constants): one reference more than its uses.
  std::int32_t alloc_pinned(std::uint64_t bytes, std::int64_t uses) { return alloc(bytes, uses + 1); }

  // A block for a call output used `uses` times (outputs of the graph count one more).
  std::int32_t request(std::uint64_t bytes, std::int64_t uses) {
    constexpr std::uint64_t kMatchRange = 16;
    auto begin = free_.lower_bound(bytes / kMatchRange);
    auto mid = free_.lower_bound(bytes);
    auto end = free_.upper_bound(bytes * kMatchRange);
    for (auto it = mid; it != end; ++it)
      return take(it, bytes, uses);
    for (auto it = mid; it != begin;) {
      --it;
      return take(it, bytes, uses);
    }
    return alloc(bytes, uses);
  }

  void add_refs(std::int32_t token, std::int64_t n) { tokens_[token].refs += n; }
  void release_one(std::int32_t token) {
    Token& t = tokens_[token];
    --t.refs;
    check_release(token);
  }
  void check_release(std::int32_t token) {
    if (tokens_[token].refs == 0) free_.insert({tokens_[token].max_bytes, token});
  }
  std::int64_t storage_id(std::int32_t token) const { return tokens_[token].storage_id; }

private:
  struct Token {
    std::uint64_t max_bytes;
    std::int64_t refs;
    std::int64_t storage_id;
  };
  std::int32_t alloc(std::uint64_t bytes, std::int64_t refs) {
    tokens_.push_back({bytes, refs, static_cast<std::int64_t>(tokens_.size())});
    return static_cast<std::int32_t>(tokens_.size() - 1);
  }
  std::int32_t take(std::multimap<std::uint64_t, std::int32_t>::iterator it, std::uint64_t bytes,
                    std::int64_t uses) {
    const std::int32_t tok = it->second;
    tokens_[tok].max_bytes = std::max(bytes, tokens_[tok].max_bytes);
    tokens_[tok].refs = uses;
    free_.erase(it);
    return tok;
  }

  std::vector<Token> tokens_;
  std::multimap<std::uint64_t, std::int32_t> free_;
};

} // namespace lightsim::ir::graphgen::detail
