// FieldTable: the config keys of one parameter struct, each declared once (key, member, unit, required or
// default, range or validator, a one-line doc), and everything that follows from the declaration: reading
// a JSON object strictly into the struct (ConfigObject's one-line errors, unknown keys rejected), writing
// the struct back (optional fields only where they differ from their default), and the reference rows
// that `lightsim --describe-config` prints and configs/README.md carries (generated; a test checks them).
//
//   const FieldTable<Memory>& t = ...;
//   FieldTable<Memory> memory_fields("memory", {
//       Field<Memory>::rate(&Memory::bandwidth_GBps, "bandwidth_GBps", "GB/s", "peak bandwidth"),
//       Field<Memory>::count(&Memory::banks, "banks", "", "banks / channels").optional(),
//   });
//
// A field whose reader is empty is structural (a name, a kind, a reference to another part of the
// machine): the loader reads it, the table only documents it. Rules between fields of one struct are the
// table's checks, run after its fields are read (they may also derive fields from others).
//
// It is not a schema language: the struct and its defaults are C++, and the loader decides what a table
// is read into.
#pragma once

#include "ir/hardware/config_reader.h"
#include "ir/hardware/field_doc.h"

#include <array>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace lightsim::ir {

namespace detail {
std::string number_text(double value); // shortest round-trip text, as JSON writes it
} // namespace detail

template <class S> class FieldTable;

template <class S> struct Field {
  std::string key, type, unit, doc;
  bool required = true;
  std::string default_text; // docs of an optional field; empty: the struct's default value
  std::function<void(detail::ConfigObject&, S&)> read; // the key is present; empty: structural
  std::function<void(const S&, nlohmann::json&)> write;
  std::function<bool(const S&)> at_default; // optional fields are written only when this is false

  // The field may be absent: it keeps the default-constructed struct's value (described as `text` when
  // given, else as that value).
  Field optional(std::string text = "") && {
    required = false;
    default_text = std::move(text);
    return std::move(*this);
  }

  // An optional field whose default depends on other fields (a PCIe link's rate from its lanes): written
  // unless `is_default` says it holds that default.
  Field at_default_when(std::function<bool(const S&)> is_default) && {
    at_default = std::move(is_default);
    return std::move(*this);
  }

  // ---- Factories, one per kind of value. `unit` is the unit of the number ("ns", "GB/s"). ----
  static Field count(int S::*m, std::string key, std::string unit, std::string doc) {
    return scalar<int>(m, std::move(key), "integer >= 1", std::move(unit), std::move(doc),
                       [](detail::ConfigObject& o, const std::string& k) { return o.count(k); });
  }
  static Field integer(int S::*m, std::string key, int lo, int hi, std::string unit, std::string doc) {
    return scalar<int>(
        m, std::move(key), "integer " + std::to_string(lo) + ".." + std::to_string(hi), std::move(unit),
        std::move(doc),
        [lo, hi](detail::ConfigObject& o, const std::string& k) { return o.integer_in(k, lo, hi); });
  }
  static Field optional_integer(std::optional<int> S::*m, std::string key, int lo, int hi, std::string unit,
                                std::string doc) {
    Field f;
    f.key = std::move(key);
    f.type = "integer " + std::to_string(lo) + ".." + std::to_string(hi);
    f.unit = std::move(unit);
    f.doc = std::move(doc);
    f.read = [m, k = f.key, lo, hi](detail::ConfigObject& o, S& s) { s.*m = o.integer_in(k, lo, hi); };
    f.write = [m, k = f.key](const S& s, nlohmann::json& j) {
      if (s.*m) j[k] = *(s.*m);
    };
    f.at_default = [m](const S& s) { return !(s.*m).has_value(); };
    return std::move(f).optional();
  }
  static Field rate(double S::*m, std::string key, std::string unit, std::string doc) {
    return scalar<double>(m, std::move(key), "number > 0", std::move(unit), std::move(doc),
                          [](detail::ConfigObject& o, const std::string& k) { return o.rate(k); });
  }
  static Field non_negative(double S::*m, std::string key, std::string unit, std::string doc) {
    return scalar<double>(m, std::move(key), "number >= 0", std::move(unit), std::move(doc),
                          [](detail::ConfigObject& o, const std::string& k) { return o.non_negative(k); });
  }
  static Field number(double S::*m, std::string key, std::string unit, std::string doc) {
    return scalar<double>(m, std::move(key), "number", std::move(unit), std::move(doc),
                          [](detail::ConfigObject& o, const std::string& k) { return o.number(k); });
  }
  static Field fraction(double S::*m, std::string key, std::string doc) {
    return scalar<double>(m, std::move(key), "number in (0, 1]", "ratio", std::move(doc),
                          [](detail::ConfigObject& o, const std::string& k) { return o.fraction(k); });
  }
  static Field flag(bool S::*m, std::string key, std::string doc) {
    return scalar<bool>(m, std::move(key), "true or false", "", std::move(doc),
                        [](detail::ConfigObject& o, const std::string& k) { return o.boolean(k); });
  }
  static Field text(std::string S::*m, std::string key, std::string doc) {
    return scalar<std::string>(m, std::move(key), "string", "", std::move(doc),
                               [](detail::ConfigObject& o, const std::string& k) { return o.string(k); });
  }
  // A rate given in `unit` and held as `factor` x that (capacity_MiB held as bytes).
  static Field scaled_rate(double S::*m, std::string key, double factor, std::string unit, std::string doc) {
    Field f = rate(m, std::move(key), std::move(unit), std::move(doc));
    f.read = [m, k = f.key, factor](detail::ConfigObject& o, S& s) { s.*m = o.rate(k) * factor; };
    f.write = [m, k = f.key, factor](const S& s, nlohmann::json& j) { j[k] = s.*m / factor; };
    return f;
  }
  // One of the names of `table` (an ir::NameTable), each a `what` ("fusion mode").
  template <class E, class Table>
  static Field choice(E S::*m, std::string key, const Table& table, std::string what, std::string doc) {
    Field f;
    f.key = std::move(key);
    f.type = "one of " + table.choices();
    f.doc = std::move(doc);
    f.read = [m, k = f.key, &table, what](detail::ConfigObject& o, S& s) {
      const std::string name = o.string(k);
      const auto value = table.parse(name);
      if (!value) o.fail(k, "unknown " + what + " '" + name + "' (expected " + table.choices() + ")");
      s.*m = *value;
    };
    f.write = [m, k = f.key, &table](const S& s, nlohmann::json& j) { j[k] = table.name(s.*m); };
    f.at_default = [m](const S& s) { return s.*m == S{}.*m; };
    f.default_text_of = [m, &table] { return std::string(table.name(S{}.*m)); };
    return f;
  }
  // A nested object read by its own table.
  template <class T>
  static Field object(T S::*m, std::string key, const FieldTable<T>& table, std::string doc) {
    Field f;
    f.key = std::move(key);
    f.type = "object (" + table.name() + ")";
    f.doc = std::move(doc);
    f.read = [m, k = f.key, &table](detail::ConfigObject& o, S& s) {
      detail::ConfigObject sub = o.object(k);
      s.*m = T{};
      table.read_all(sub, s.*m);
    };
    f.write = [m, k = f.key, &table](const S& s, nlohmann::json& j) {
      nlohmann::json sub = nlohmann::json::object();
      table.write(s.*m, sub);
      j[k] = std::move(sub);
    };
    f.at_default = [m](const S& s) { return s.*m == S{}.*m; };
    f.default_text_of = [] { return std::string("none"); };
    f.nested_docs = [&table](std::vector<DocSection>& out) { table.append_sections(out); };
    return f;
  }
  // An array of at least `min_count` objects, each read by `table`.
  template <class T>
  static Field objects(std::vector<T> S::*m, std::string key, const FieldTable<T>& table,
                       std::size_t min_count, std::string doc) {
    Field f;
    f.key = std::move(key);
    f.type = "array of objects (" + table.name() + ")";
    f.doc = std::move(doc);
    f.read = [m, k = f.key, &table, min_count](detail::ConfigObject& o, S& s) {
      const nlohmann::json& array = o.required(k);
      if (!array.is_array()) o.fail(k, std::string("expected an array, found ") + array.type_name());
      if (array.size() < min_count)
        o.fail(k, (array.empty() ? std::string("is empty")
                                 : "has " + std::to_string(array.size()) + " element(s)") +
                      ": needs at least " + std::to_string(min_count));
      (s.*m).clear();
      for (std::size_t i = 0; i < array.size(); ++i) {
        detail::ConfigObject element(array[i], o.source(), o.key_path(k) + "[" + std::to_string(i) + "]");
        element.set_context(o.context());
        (s.*m).emplace_back();
        table.read_all(element, (s.*m).back());
      }
    };
    f.write = [m, k = f.key, &table](const S& s, nlohmann::json& j) {
      nlohmann::json array = nlohmann::json::array();
      for (const T& t : s.*m) {
        nlohmann::json element = nlohmann::json::object();
        table.write(t, element);
        array.push_back(std::move(element));
      }
      j[k] = std::move(array);
    };
    f.at_default = [m](const S& s) { return (s.*m).empty(); };
    f.default_text_of = [] { return std::string("none"); };
    f.nested_docs = [&table](std::vector<DocSection>& out) { table.append_sections(out); };
    return f;
  }
  // An object {"<name>": value, ...} over the names of `table` (absent names keep their value), each a
  // `what` ("precision"); each value is read by `value` (e.g. ConfigObject::rate), and `refuse` may refuse
  // a name (it returns why).
  template <class Table, std::size_t N>
  static Field keyed(std::array<double, N> S::*m, std::string key, const Table& table, std::string what,
                     std::string value_type, std::string unit, std::string doc,
                     std::function<double(detail::ConfigObject&, const std::string&)> value,
                     std::function<std::string(std::size_t)> refuse = {}) {
    Field f;
    f.key = std::move(key);
    f.type = "object {name: " + value_type + "} over " + table.choices();
    f.unit = std::move(unit);
    f.doc = std::move(doc);
    f.read = [m, k = f.key, &table, what, value, refuse](detail::ConfigObject& o, S& s) {
      detail::ConfigObject sub = o.object(k);
      for (const auto& item : sub.raw().items()) {
        const auto index = table.parse(item.key());
        if (!index)
          sub.fail(item.key(),
                   "unknown " + what + " '" + item.key() + "' (expected " + table.choices() + ")");
        const auto i = static_cast<std::size_t>(*index);
        if (refuse)
          if (const std::string why = refuse(i); !why.empty()) sub.fail(item.key(), why);
        (s.*m)[i] = value(sub, item.key());
      }
      sub.finish();
    };
    f.write = [m, k = f.key, &table](const S& s, nlohmann::json& j) {
      nlohmann::json sub = nlohmann::json::object();
      const S plain{};
      for (const auto& [e, name] : table.entries())
        if ((s.*m)[static_cast<std::size_t>(e)] != (plain.*m)[static_cast<std::size_t>(e)])
          sub[std::string(name)] = (s.*m)[static_cast<std::size_t>(e)];
      j[k] = std::move(sub);
    };
    f.at_default = [m](const S& s) { return s.*m == S{}.*m; };
    return f;
  }
  // Documented here, read by the loader (a name, a kind, a reference to another part of the machine);
  // .optional() when it may be absent.
  static Field structural(std::string key, std::string type, std::string doc) {
    Field f;
    f.key = std::move(key);
    f.type = std::move(type);
    f.doc = std::move(doc);
    return f;
  }

  std::function<std::string()> default_text_of;              // the default's text when default_text is empty
  std::function<void(std::vector<DocSection>&)> nested_docs; // a nested object's sections (its table's)

private:
  template <class T, class Read>
  static Field scalar(T S::*m, std::string key, std::string type, std::string unit, std::string doc,
                      Read read_value) {
    Field f;
    f.key = std::move(key);
    f.type = std::move(type);
    f.unit = std::move(unit);
    f.doc = std::move(doc);
    f.read = [m, k = f.key, read_value](detail::ConfigObject& o, S& s) { s.*m = read_value(o, k); };
    f.write = [m, k = f.key](const S& s, nlohmann::json& j) { j[k] = s.*m; };
    f.at_default = [m](const S& s) { return s.*m == S{}.*m; };
    f.default_text_of = [m] {
      if constexpr (std::is_same_v<T, bool>)
        return std::string((S{}.*m) ? "true" : "false");
      else if constexpr (std::is_integral_v<T>)
        return std::to_string(S{}.*m);
      else if constexpr (std::is_arithmetic_v<T>)
        return detail::number_text(static_cast<double>(S{}.*m));
      else
        return std::string(S{}.*m);
    };
    return f;
  }
};

// The fields of struct S, in the order a config lists them, and the rules between them.
template <class S> class FieldTable {
public:
  // Runs after the fields are read: validates rules between fields, fills values derived from others.
  using Check = std::function<void(S&, detail::ConfigObject&)>;

  FieldTable(std::string name, std::vector<Field<S>> fields, std::vector<Check> checks = {})
      : name_(std::move(name)), fields_(std::move(fields)), checks_(std::move(checks)) {}

  const std::string& name() const { return name_; }
  const std::vector<Field<S>>& fields() const { return fields_; }

  // Reads every non-structural field present in `o` into `s` (absent optional ones keep s's values),
  // then the checks. Marks the structural keys as known; does not call o.finish().
  void read(detail::ConfigObject& o, S& s) const {
    for (const Field<S>& f : fields_) {
      if (!f.read) {
        o.optional(f.key);
        continue;
      }
      if (o.optional(f.key))
        f.read(o, s);
      else if (f.required)
        o.fail(f.key, "missing required field (" + f.doc + ")");
    }
    for (const Check& check : checks_)
      check(s, o);
  }
  // Reads, then rejects keys no field names.
  void read_all(detail::ConfigObject& o, S& s) const {
    read(o, s);
    o.finish();
  }
  // Writes every non-structural field: required ones always, optional ones where they are not at their
  // default.
  void write(const S& s, nlohmann::json& j) const {
    for (const Field<S>& f : fields_)
      if (f.write && (f.required || !f.at_default(s))) f.write(s, j);
  }
  // This table's section, then those of the objects nested in it (each once).
  std::vector<DocSection> sections() const {
    std::vector<DocSection> out;
    append_sections(out);
    return out;
  }
  void append_sections(std::vector<DocSection>& out) const {
    for (const DocSection& s : out)
      if (s.name == name_) return;
    out.push_back({name_, docs()});
    for (const Field<S>& f : fields_)
      if (f.nested_docs) f.nested_docs(out);
  }
  std::vector<FieldDoc> docs() const {
    std::vector<FieldDoc> rows;
    for (const Field<S>& f : fields_) {
      std::string presence = "required";
      if (!f.required)
        presence = "optional, default " + (!f.default_text.empty() ? f.default_text
                                           : f.default_text_of     ? f.default_text_of()
                                                                   : std::string("none"));
      rows.push_back({f.key, f.type, f.unit, presence, f.doc});
    }
    return rows;
  }

private:
  std::string name_;
  std::vector<Field<S>> fields_;
  std::vector<Check> checks_;
};

} // namespace lightsim::ir
