// JsonCapture: builds one nlohmann::json value from SAX events, for the TVM reader (ir/tvm/tvm_sax_reader.h)
// to keep whole a value of a kind it does not read. Private to ir/.
//
// It is not a general DOM parser: it starts at an open container (possibly an array read half-way).
#pragma once

#include "ir/tvm/tvm_document.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lightsim::ir {

// Builds one JSON value from SAX events: a value of a kind the fast form cannot hold, kept whole.
class JsonCapture {
public:
  bool active() const { return active_; }
  Slot slot() const { return slot_; }

  // Starts with an open container (`root` may already hold elements: an array read half-way).
  void begin(Slot slot, nlohmann::json root) {
    slot_ = slot;
    root_ = std::move(root);
    open_.assign(1, &root_);
    active_ = true;
  }
  void add(nlohmann::json value) { place(std::move(value)); }
  void open(nlohmann::json container) { open_.push_back(&place(std::move(container))); }
  // True when this closes the captured value.
  bool close() {
    open_.pop_back();
    return open_.empty();
  }
  void key(const std::string& name) { key_ = name; }
  nlohmann::json take() {
    active_ = false;
    return std::move(root_);
  }

private:
  nlohmann::json& place(nlohmann::json value) {
    nlohmann::json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return parent.back();
    }
    nlohmann::json& member = parent[key_]; // a repeated key keeps the last value, as a DOM parse does
    member = std::move(value);
    return member;
  }

  bool active_ = false;
  Slot slot_ = 0;
  nlohmann::json root_;
  std::vector<nlohmann::json*> open_;
  std::string key_;
};

} // namespace lightsim::ir
