#include "sim/trace/h5_posix_driver.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>

namespace lightsim::sim::h5 {
namespace {

struct DriverInfo {
  IoStatus* status;
};

struct PosixFile {
  H5FD_t pub; // HDF5's public part, first (HDF5 casts between the two)
  int fd = -1;
  haddr_t eoa = 0, eof = 0;
  dev_t device = 0;
  ino_t inode = 0;
  IoStatus* status = nullptr;
};

PosixFile* self(H5FD_t* f) {
  return reinterpret_cast<PosixFile*>(f);
}
const PosixFile* self(const H5FD_t* f) {
  return reinterpret_cast<const PosixFile*>(f);
}

void record(PosixFile* f, int err, const char* operation) {
  if (f->status && !f->status->failed()) {
    f->status->error = err ? err : EIO;
    f->status->operation = operation;
  }
}

H5FD_t* driver_open(const char* name, unsigned flags, hid_t fapl, haddr_t /*maxaddr*/) {
  int oflags = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
  if (flags & H5F_ACC_TRUNC) oflags |= O_TRUNC;
  if (flags & H5F_ACC_CREAT) oflags |= O_CREAT;
  if (flags & H5F_ACC_EXCL) oflags |= O_EXCL;
  const int fd = ::open(name, oflags | O_CLOEXEC, 0644);
  if (fd < 0) return nullptr; // HDF5 reports "unable to open file"
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return nullptr;
  }
  auto* f = new PosixFile{};
  f->fd = fd;
  f->eof = static_cast<haddr_t>(st.st_size);
  f->device = st.st_dev;
  f->inode = st.st_ino;
  if (const auto* info = static_cast<const DriverInfo*>(H5Pget_driver_info(fapl))) f->status = info->status;
  return &f->pub;
}

herr_t driver_close(H5FD_t* file) {
  PosixFile* f = self(file);
  if (::close(f->fd) != 0) record(f, errno, "close");
  delete f;
  return 0;
}

int driver_cmp(const H5FD_t* a, const H5FD_t* b) {
  const PosixFile* x = self(a);
  const PosixFile* y = self(b);
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  if (x->inode != y->inode) return x->inode < y->inode ? -1 : 1;
  return 0;
}

herr_t driver_query(const H5FD_t* /*file*/, unsigned long* flags) {
  *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
           H5FD_FEAT_AGGREGATE_SMALLDATA;
  return 0;
}

haddr_t driver_get_eoa(const H5FD_t* file, H5FD_mem_t /*type*/) {
  return self(file)->eoa;
}

herr_t driver_set_eoa(H5FD_t* file, H5FD_mem_t /*type*/, haddr_t addr) {
  self(file)->eoa = addr;
  return 0;
}

haddr_t driver_get_eof(const H5FD_t* file, H5FD_mem_t /*type*/) {
  return self(file)->eof;
}

herr_t driver_get_handle(H5FD_t* file, hid_t /*fapl*/, void** handle) {
  *handle = &self(file)->fd;
  return 0;
}

// Bytes past the end of the file (or that could not be read) read as zeros.
herr_t driver_read(H5FD_t* file, H5FD_mem_t /*type*/, hid_t /*dxpl*/, haddr_t addr, size_t size,
                   void* buffer) {
  PosixFile* f = self(file);
  auto* p = static_cast<char*>(buffer);
  auto offset = static_cast<off_t>(addr);
  while (size > 0) {
    const ssize_t n = ::pread(f->fd, p, size, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) record(f, errno, "read");
      std::memset(p, 0, size);
      break;
    }
    p += n;
    offset += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

herr_t driver_write(H5FD_t* file, H5FD_mem_t /*type*/, hid_t /*dxpl*/, haddr_t addr, size_t size,
                    const void* buffer) {
  PosixFile* f = self(file);
  if (addr + size > f->eof) f->eof = addr + size;
  if (f->status && f->status->failed()) return 0; // the file is lost already: skip the I/O
  const auto* p = static_cast<const char*>(buffer);
  auto offset = static_cast<off_t>(addr);
  while (size > 0) {
    const ssize_t n = ::pwrite(f->fd, p, size, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      record(f, n < 0 ? errno : EIO, "write");
      return 0;
    }
    p += n;
    offset += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

herr_t driver_truncate(H5FD_t* file, hid_t /*dxpl*/, hbool_t /*closing*/) {
  PosixFile* f = self(file);
  if (f->eoa != f->eof) {
    if (::ftruncate(f->fd, static_cast<off_t>(f->eoa)) != 0) record(f, errno, "truncate");
    f->eof = f->eoa;
  }
  return 0;
}

H5FD_class_t make_class() {
  H5FD_class_t c{};
  c.name = "lightsim_posix";
  c.maxaddr = static_cast<haddr_t>(std::numeric_limits<off_t>::max());
  c.fc_degree = H5F_CLOSE_WEAK;
  c.fapl_size = sizeof(DriverInfo);
  c.open = driver_open;
  c.close = driver_close;
  c.cmp = driver_cmp;
  c.query = driver_query;
  c.get_eoa = driver_get_eoa;
  c.set_eoa = driver_set_eoa;
  c.get_eof = driver_get_eof;
  c.get_handle = driver_get_handle;
  c.read = driver_read;
  c.write = driver_write;
  c.truncate = driver_truncate;
  const H5FD_mem_t dichotomy[H5FD_MEM_NTYPES] = H5FD_FLMAP_DICHOTOMY;
  for (int i = 0; i < H5FD_MEM_NTYPES; ++i)
    c.fl_map[i] = dichotomy[i];
  return c;
}

hid_t driver_id() {
  static const H5FD_class_t cls = make_class();
  static const hid_t id = H5FDregister(&cls);
  if (id < 0) throw H5::FileIException("posix_driver_fapl", "cannot register the lightsim_posix file driver");
  return id;
}

} // namespace

H5::FileAccPropList posix_driver_fapl(IoStatus* status) {
  H5::FileAccPropList fapl;
  const DriverInfo info{status};
  if (H5Pset_driver(fapl.getId(), driver_id(), &info) < 0)
    throw H5::PropListIException("posix_driver_fapl", "H5Pset_driver failed");
  return fapl;
}

} // namespace lightsim::sim::h5
