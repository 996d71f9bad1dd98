// H5Table: an internal helper of the trace writer (include it only from .cc files: it pulls in H5Cpp.h).
// Writes one HDF5 compound dataset as a chunked table, streamed a chunk of rows at a time: the caller
// fills rows field by field through a RowCursor, straight into the file layout (little-endian numbers,
// fixed-length NUL-padded strings, no padding), so HDF5 converts nothing and the bytes written depend
// only on the values. Also: groups and attributes created without object timestamps.
//
// It is not a general HDF5 wrapper: only what traces need.
#pragma once

#include "sim/trace/h5_posix_driver.h"

#include <H5Cpp.h>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::sim::h5 {

static_assert(std::endian::native == std::endian::little, "trace rows are packed in little-endian order");

enum class ColumnType : std::uint8_t { U8, I32, I64, U64, F64, String };

struct Column {
  std::string name;
  ColumnType type = ColumnType::F64;
  std::size_t width = 0; // bytes, for String columns (at least 1)
};

// Writes the fields of one row in column order.
class RowCursor {
public:
  RowCursor(char* row, const Column* columns) : p_(row), col_(columns) {}
  void u8(std::uint8_t v) { put(&v, sizeof v); }
  void i32(std::int32_t v) { put(&v, sizeof v); }
  void i64(std::int64_t v) { put(&v, sizeof v); }
  void u64(std::uint64_t v) { put(&v, sizeof v); }
  void f64(double v) { put(&v, sizeof v); }
  void str(std::string_view s) {
    const std::size_t w = col_->width;
    const std::size_t n = s.size() < w ? s.size() : w;
    if (n) std::memcpy(p_, s.data(), n); // an empty view may have a null data()
    std::memset(p_ + n, 0, w - n);
    p_ += w;
    ++col_;
  }

private:
  void put(const void* v, std::size_t n) {
    std::memcpy(p_, v, n);
    p_ += n;
    ++col_;
  }
  char* p_;
  const Column* col_;
};

inline constexpr std::size_t kChunkRows = 65536;

// A chunked compound dataset of `rows` rows under `parent`.
class Table {
public:
  // `io`, when given, is checked after every chunk: a recorded I/O failure throws IoFailed.
  Table(const H5::Group& parent, const std::string& name, std::vector<Column> columns, std::size_t rows,
        const IoStatus* io = nullptr);

  // Calls fill(row_index, cursor) for every row in order, writing a chunk at a time.
  template <class Fill> void write(Fill&& fill) {
    std::vector<char> buffer(chunk_rows_ * row_bytes_);
    for (std::size_t first = 0; first < rows_; first += chunk_rows_) {
      const std::size_t count = rows_ - first < chunk_rows_ ? rows_ - first : chunk_rows_;
      for (std::size_t i = 0; i < count; ++i) {
        RowCursor cursor(buffer.data() + i * row_bytes_, columns_.data());
        fill(first + i, cursor);
      }
      write_block(buffer.data(), first, count);
    }
  }

  H5::DataSet& dataset() { return dataset_; }

private:
  void write_block(const char* data, std::size_t first, std::size_t count);

  std::vector<Column> columns_;
  std::size_t rows_ = 0, row_bytes_ = 0, chunk_rows_ = 1;
  const IoStatus* io_ = nullptr;
  H5::CompType type_;
  H5::DataSet dataset_;
};

// The widest of `n` strings produced by name(i), at least 1 (HDF5 has no zero-length strings).
template <class Name> std::size_t string_width(std::size_t n, Name&& name) {
  std::size_t w = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t len = std::string_view(name(i)).size();
    if (len > w) w = len;
  }
  return w;
}

// A group without object timestamps.
H5::Group create_group(const H5::Group& parent, const std::string& name);

// Scalar attributes: strings as variable-length UTF-8 (h5py reads them as str), numbers little-endian.
void set_attribute(const H5::H5Object& object, const std::string& name, const std::string& value);
void set_attribute(const H5::H5Object& object, const std::string& name, double value);
void set_attribute(const H5::H5Object& object, const std::string& name, std::int64_t value);

} // namespace lightsim::sim::h5
