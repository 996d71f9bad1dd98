#include "sim/trace/h5_table.h"

#include <algorithm>

namespace lightsim::sim::h5 {
namespace {

std::size_t column_bytes(const Column& c) {
  switch (c.type) {
  case ColumnType::U8:
    return 1;
  case ColumnType::I32:
    return 4;
  case ColumnType::I64:
  case ColumnType::U64:
  case ColumnType::F64:
    return 8;
  case ColumnType::String:
    return std::max<std::size_t>(c.width, 1);
  }
  return 0;
}

H5::DataType column_type(const Column& c) {
  switch (c.type) {
  case ColumnType::U8:
    return H5::PredType::STD_U8LE;
  case ColumnType::I32:
    return H5::PredType::STD_I32LE;
  case ColumnType::I64:
    return H5::PredType::STD_I64LE;
  case ColumnType::U64:
    return H5::PredType::STD_U64LE;
  case ColumnType::F64:
    return H5::PredType::IEEE_F64LE;
  case ColumnType::String: {
    H5::StrType s(H5::PredType::C_S1, column_bytes(c));
    s.setStrpad(H5T_STR_NULLPAD);
    s.setCset(H5T_CSET_UTF8);
    return s;
  }
  }
  return H5::PredType::IEEE_F64LE;
}

} // namespace

Table::Table(const H5::Group& parent, const std::string& name, std::vector<Column> columns, std::size_t rows,
             const IoStatus* io)
    : columns_(std::move(columns)), rows_(rows), io_(io) {
  for (Column& c : columns_) {
    if (c.type == ColumnType::String) c.width = std::max<std::size_t>(c.width, 1);
    row_bytes_ += column_bytes(c);
  }
  type_ = H5::CompType(row_bytes_);
  std::size_t offset = 0;
  for (const Column& c : columns_) {
    type_.insertMember(c.name, offset, column_type(c));
    offset += column_bytes(c);
  }
  chunk_rows_ = std::clamp<std::size_t>(rows_, 1, kChunkRows);

  const hsize_t dims[1] = {rows_};
  const hsize_t max_dims[1] = {H5S_UNLIMITED}; // chunking needs a chunk no larger than max dims
  H5::DataSpace space(1, dims, max_dims);
  H5::DSetCreatPropList dcpl;
  const hsize_t chunk[1] = {chunk_rows_};
  dcpl.setChunk(1, chunk);
  H5Pset_obj_track_times(dcpl.getId(), false); // no timestamps: identical inputs, identical bytes
  // Every row is written, so fill values are never seen. Without them HDF5 writes each chunk straight
  // from our buffer; with them it stages every new chunk in its cache (a memset and a copy per chunk).
  // Bytes past the end of a partial last chunk are then never written by anyone (the same zeros every
  // run: checked by the determinism test and under valgrind).
  dcpl.setFillTime(H5D_FILL_TIME_NEVER);
  dataset_ = parent.createDataSet(name, type_, space, dcpl);
}

void Table::write_block(const char* data, std::size_t first, std::size_t count) {
  const hsize_t start[1] = {first};
  const hsize_t n[1] = {count};
  H5::DataSpace file_space = dataset_.getSpace();
  file_space.selectHyperslab(H5S_SELECT_SET, n, start);
  H5::DataSpace memory_space(1, n);
  dataset_.write(data, type_, memory_space, file_space);
  if (io_ && io_->failed()) throw IoFailed("writing " + dataset_.getObjName());
}

H5::Group create_group(const H5::Group& parent, const std::string& name) {
  const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_obj_track_times(gcpl, false);
  const hid_t id = H5Gcreate2(parent.getId(), name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT);
  H5Pclose(gcpl);
  if (id < 0) throw H5::GroupIException("create_group", "cannot create group " + name);
  H5::Group group(id); // takes its own reference
  H5Gclose(id);
  return group;
}

void set_attribute(const H5::H5Object& object, const std::string& name, const std::string& value) {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  H5::Attribute attr = object.createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
  attr.write(type, value);
}

void set_attribute(const H5::H5Object& object, const std::string& name, double value) {
  H5::Attribute attr = object.createAttribute(name, H5::PredType::IEEE_F64LE, H5::DataSpace(H5S_SCALAR));
  attr.write(H5::PredType::NATIVE_DOUBLE, &value);
}

void set_attribute(const H5::H5Object& object, const std::string& name, std::int64_t value) {
  H5::Attribute attr = object.createAttribute(name, H5::PredType::STD_I64LE, H5::DataSpace(H5S_SCALAR));
  attr.write(H5::PredType::NATIVE_INT64, &value);
}

} // namespace lightsim::sim::h5
