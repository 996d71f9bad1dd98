// Reading HDF5 traces back in tests (HDF5's C++ API): one column of a compound table, attributes.
// Test-only; the project's writer is sim/trace/trace_writer.h.
#pragma once

#include <H5Cpp.h>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace lightsim::test::h5read {

template <class T> H5::PredType native();
template <> inline H5::PredType native<std::uint8_t>() {
  return H5::PredType::NATIVE_UINT8;
}
template <> inline H5::PredType native<double>() {
  return H5::PredType::NATIVE_DOUBLE;
}
template <> inline H5::PredType native<std::int32_t>() {
  return H5::PredType::NATIVE_INT32;
}
template <> inline H5::PredType native<std::uint64_t>() {
  return H5::PredType::NATIVE_UINT64;
}

template <class T>
std::vector<T> column(const H5::H5File& file, const std::string& table, const std::string& field) {
  H5::DataSet ds = file.openDataSet(table);
  std::vector<T> out(static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints()));
  H5::CompType type(sizeof(T));
  type.insertMember(field, 0, native<T>());
  if (!out.empty()) ds.read(out.data(), type);
  return out;
}

inline std::vector<std::string> strings(const H5::H5File& file, const std::string& table,
                                        const std::string& field) {
  H5::DataSet ds = file.openDataSet(table);
  const auto n = static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints());
  constexpr std::size_t kWidth = 128;
  std::vector<char> buf(n * kWidth);
  H5::CompType type(kWidth);
  H5::StrType text(H5::PredType::C_S1, kWidth);
  text.setCset(H5T_CSET_UTF8); // as written: HDF5 does not convert between character sets
  type.insertMember(field, 0, text);
  if (n) ds.read(buf.data(), type);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i)
    out.emplace_back(buf.data() + i * kWidth, strnlen(buf.data() + i * kWidth, kWidth));
  return out;
}

inline std::string string_attr(const H5::H5Object& obj, const std::string& name) {
  H5::Attribute a = obj.openAttribute(name);
  std::string value;
  a.read(a.getStrType(), value);
  return value;
}

inline double double_attr(const H5::H5Object& obj, const std::string& name) {
  double v = 0;
  obj.openAttribute(name).read(H5::PredType::NATIVE_DOUBLE, &v);
  return v;
}

inline std::int64_t int_attr(const H5::H5Object& obj, const std::string& name) {
  std::int64_t v = 0;
  obj.openAttribute(name).read(H5::PredType::NATIVE_INT64, &v);
  return v;
}

} // namespace lightsim::test::h5read
