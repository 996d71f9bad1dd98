// UnitKind: the descriptor of one kind of compute unit (a CPU, a GPU, a photonic MAC array, a systolic
// array, ...): everything the rest of lightsim needs to know of a unit of that kind, behind one interface:
// its name in configs, its parameters (read, written and documented from its field table), the features
// and energy components it adds to the arithmetic model and how it computes them, what retraining fits
// on, how the list scheduler and the replay share it between ops, and its lane name in traces. Each kind
// lives in one folder, sim/units/<kind>/, with its SystemC module, and registers itself once
// (sim/units/kinds.def); the loader, cost model, stacked graph, solver, scheduler, replay and traces find
// kinds by name in the registry below and never name one.
//
// KindParams holds a unit's kind-specific parameters (the kind's own struct) by value, type-erased, so
// that ir::Unit knows no kind's struct.
//
// It is not the timing of any kind: the kinds' folders count their work and time it.
#pragma once

#include "ir/energy.h"
#include "ir/hardware/arithmetic_model.h"
#include "ir/hardware/field_doc.h"
#include "ir/op_class.h"

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lightsim::ir {

struct Graph;
struct Hardware;
struct Memory;
struct Op;
struct OpFeatures;
struct Unit;
namespace detail {
class ConfigObject;
}

// A kind's parameter struct P, held by value (copies copy it, == compares it).
class KindParams {
public:
  KindParams() = default;
  template <class P>
  explicit KindParams(P value) : holder_(std::make_unique<Model<P>>(std::move(value))), tag_(tag_of<P>()) {}
  KindParams(const KindParams& o) : holder_(o.holder_ ? o.holder_->clone() : nullptr), tag_(o.tag_) {}
  KindParams& operator=(const KindParams& o) {
    if (this != &o) *this = KindParams(o);
    return *this;
  }
  KindParams(KindParams&&) noexcept = default;
  KindParams& operator=(KindParams&&) noexcept = default;
  ~KindParams() = default;

  template <class P> bool holds() const { return tag_ == tag_of<P>(); }
  // The struct; std::logic_error when it holds another kind's (a kind reading a unit not its own).
  template <class P> const P& get() const {
    if (!holds<P>()) throw std::logic_error("unit parameters of another kind");
    return static_cast<const Model<P>&>(*holder_).value;
  }
  template <class P> P& get() {
    if (!holds<P>()) throw std::logic_error("unit parameters of another kind");
    return static_cast<Model<P>&>(*holder_).value;
  }
  friend bool operator==(const KindParams& a, const KindParams& b) {
    if (a.tag_ != b.tag_) return false;
    return !a.holder_ || a.holder_->equals(*b.holder_);
  }

private:
  struct Holder {
    virtual ~Holder() = default;
    virtual std::unique_ptr<Holder> clone() const = 0;
    virtual bool equals(const Holder& other) const = 0; // other holds the same type
  };
  template <class P> struct Model final : Holder {
    explicit Model(P v) : value(std::move(v)) {}
    std::unique_ptr<Holder> clone() const override { return std::make_unique<Model>(value); }
    bool equals(const Holder& other) const override {
      return value == static_cast<const Model&>(other).value;
    }
    P value;
  };
  template <class P> static const void* tag_of() {
    static const char tag = 0;
    return &tag;
  }
  std::unique_ptr<Holder> holder_;
  const void* tag_ = nullptr;
};

// What a retrain fits an (op class, unit) entry on (sim/retrain/retrain.h).
struct FitFeatures {
  std::vector<Feature> time;     // terms of the time form (with an intercept)
  std::vector<Feature> split_on; // features a two-piece fit may split on, most preferred first
  // Per energy component the terms of its form; a component not listed has `time`'s.
  std::vector<std::pair<EnergyComponent, std::vector<Feature>>> energy;
  // A feature that is a compute / memory ratio (a roofline turns at 1): a split on it is put at 1 when 1
  // lies between the two samples it separates.
  std::optional<Feature> roofline_ratio;
  const std::vector<Feature>& energy_terms(EnergyComponent c) const;
  void set_energy_terms(EnergyComponent c, std::vector<Feature> terms);
};

// A rate the ops in flight on a unit share (a CPU's shared cache or memory port); per_flow_GBps caps each
// flow. total_GBps <= 0: a level every op has to itself (nothing shared).
struct SharedPort {
  double total_GBps = 0, per_flow_GBps = 0;
};
// How one op streams its operands through its unit's shared ports: `flows` flows of bytes / flows each
// through port `port` (an index into shared_ports()), memory_ns alone; fixed_ns of its time is not
// streaming (dispatch); compute_after: it computes after the stream (a GEMM packs, then computes) rather
// than during it.
struct PortFlow {
  int port = -1;
  double bytes = 0;
  int flows = 1;
  double memory_ns = 0;
  double fixed_ns = 0;
  bool compute_after = false;
};

class UnitKind {
public:
  virtual ~UnitKind() = default;

  // ---- What it is
  virtual std::string_view name() const = 0;      // the config's `kind`: "cpu", "gpu", ...
  virtual std::string_view summary() const = 0;   // one line: what a unit of this kind is
  virtual std::string_view lane_noun() const = 0; // what a lane (of `cores`) is: "core", "stream", "array"
  // Whether each op it runs is a kernel launched from the host (a GPU's), as the report counts launches.
  virtual bool launches_kernels() const { return false; }

  // ---- Parameters (its field table, sim/units/<kind>/)
  virtual KindParams default_params() const = 0; // its struct as default-constructed
  // Reads the kind's keys of a unit's object into unit.params (the common keys are read already).
  virtual void read_params(detail::ConfigObject& unit_object, Unit& unit) const = 0;
  // Adds the kind's keys of unit.params to the unit's JSON object.
  virtual void write_params(const Unit& unit, nlohmann::json& unit_object) const = 0;
  // The kind's keys, then those of the objects nested in them (ir/hardware/fields.h, sections()).
  virtual std::vector<DocSection> field_docs() const = 0;
  // After loading: parameters derived from the unit's memory (default: none).
  virtual void bind(Unit& /*unit*/, const Memory& /*home*/) const {}

  // ---- Arithmetic model
  // Fills x[ComputeCycles] and the kind's own features for `op` on `unit` (the shape features and
  // operand_bytes are filled already; compute_cycles_per_byte is derived after).
  virtual void fill_features(const Unit& unit, const OpFeatures& op, FeatureValues& x) const = 0;
  // The features and energy components the kind registered (for --describe-config).
  virtual std::vector<Feature> own_features() const { return {}; }
  virtual std::vector<EnergyComponent> own_energy_components() const { return {}; }
  // What a retrain fits an entry of this class on (default: default_fit_features).
  virtual FitFeatures fit_features(OpClass op_class) const;

  // ---- Work
  // Whether the unit can compute `op` at all, beyond its model having the op's classes (an array with no
  // MACs for the op's dtype); an op it cannot compute gets no node on it (default: every op).
  virtual bool supports(const Unit& /*unit*/, const OpFeatures& /*op*/) const { return true; }
  // Bytes the unit's memory moves for `op` beyond its operands (a PHU's im2col patches; default 0).
  virtual double materialised_bytes(const Unit& /*unit*/, const OpFeatures& /*op*/) const { return 0; }
  // The on-chip memory fused attention is tiled to (a GPU's shared memory per SM); 0: cannot run it.
  virtual double attention_on_chip_bytes(const Unit& /*unit*/) const { return 0; }
  // Throws InputError for an op of `graph` that unit `unit` of `hw` could be given but cannot compute
  // (a GEMM dtype without a rate); default: none.
  virtual void check_graph(const Hardware& /*hw*/, int /*unit*/, const Graph& /*graph*/) const {}

  // ---- Sharing the unit between ops (list scheduler and replay alike)
  virtual int ops_in_flight(const Unit& unit) const; // ops it runs at once; default: one per lane
  virtual int op_lanes(const Unit& /*unit*/, const OpFeatures& /*op*/) const { return 1; }
  virtual std::vector<SharedPort> shared_ports(const Unit& /*unit*/) const { return {}; }
  virtual std::optional<PortFlow> port_flow(const Unit& /*unit*/, const OpFeatures& /*op*/,
                                            double /*operand_bytes*/) const {
    return std::nullopt;
  }
  // Weight tiles the unit holds at once as it runs (2: it programs the next while one streams); 0 for a
  // kind that holds none.
  virtual int weight_buffers_in_use(const Unit& /*unit*/) const { return 0; }

  // The idle gap included at the start of an op's time on the unit, in both the arithmetic model and the
  // module (a GPU's gap between back-to-back kernels of a stream): traces split an op's time into this and
  // the unit's work, as a profiler reports kernel durations. Default 0.
  virtual double op_gap_ns(const Unit& /*unit*/, const Op& /*op*/) const { return 0; }
};

// What every kind fits on unless it says otherwise: time on compute_cycles and operand_bytes (a roofline:
// a split on compute_cycles_per_byte, and on operand_bytes for working sets beyond a cache), memory energy
// on operand_bytes; nothing for views and inputs.
FitFeatures default_fit_features(OpClass op_class);

// ---- The registry (filled once at start-up by lightsim::register_unit_kinds, sim/units/registry.h)
const UnitKind& register_unit_kind(std::unique_ptr<UnitKind> kind);
// nullptr when no kind has that name. std::logic_error when no kind is registered at all.
const UnitKind* find_unit_kind(std::string_view name);
const std::vector<const UnitKind*>& unit_kinds(); // in registration order
std::string unit_kind_choices();                  // "cpu, gpu, phu or systolic", for messages

} // namespace lightsim::ir
