#include "sim/io/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <streambuf>
#include <unistd.h>

namespace lightsim {
namespace fs = std::filesystem;

// An output buffer onto the temporary's file descriptor that keeps the errno of the first failed write,
// so that the message says why (std::ofstream does not).
class AtomicOutput::Buffer : public std::streambuf {
public:
  explicit Buffer(int fd) : fd_(fd) { setp(data_, data_ + sizeof data_); }
  int error() const { return error_; }

protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

private:
  bool drain() {
    for (const char* p = pbase(); error_ == 0 && p < pptr();) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n >= 0)
        p += n;
      else if (errno != EINTR)
        error_ = errno;
    }
    setp(data_, data_ + sizeof data_);
    return error_ == 0;
  }

  int fd_;
  int error_ = 0;
  char data_[1 << 16];
};

namespace {

std::string directory_of(const fs::path& target) {
  return target.has_parent_path() ? target.parent_path().string() : std::string(".");
}

// Creates a temporary beside `target` that did not exist before; returns its descriptor and sets `temp`.
int create_temporary(const fs::path& target, std::string& temp, int& error) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path candidate = target;
    candidate += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      temp = candidate.string();
      return fd;
    }
    if (errno != EEXIST) break;
  }
  error = errno;
  return -1;
}

} // namespace

AtomicOutput::AtomicOutput(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {
  const fs::path target(path_);
  if (path_.empty()) throw InputError("(no file name)", "cannot write the " + what_ + ": the path is empty");
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw error("is a directory, expected a file name");
  int err = 0;
  fd_ = create_temporary(target, temp_, err);
  if (fd_ >= 0) return;
  const std::string dir = directory_of(target);
  switch (err) {
  case ENOENT:
    throw error("directory '" + dir + "' does not exist");
  case ENOTDIR:
    throw error("'" + dir + "' is not a directory");
  case EACCES:
  case EPERM:
  case EROFS:
    throw error("no permission to write in '" + dir + "'");
  default:
    throw error(std::strerror(err));
  }
}

AtomicOutput::~AtomicOutput() {
  stream_.reset();
  buffer_.reset();
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

std::ostream& AtomicOutput::stream() {
  if (!stream_) {
    buffer_ = std::make_unique<Buffer>(fd_);
    stream_ = std::make_unique<std::ostream>(buffer_.get());
  }
  return *stream_;
}

InputError AtomicOutput::error(const std::string& reason) const {
  return InputError(path_, "cannot write the " + what_ + ": " + reason);
}

void AtomicOutput::commit() {
  if (stream_) {
    stream_->flush();
    if (buffer_->error() != 0) throw error(std::string("write failed: ") + std::strerror(buffer_->error()));
    if (!*stream_) throw error("write failed");
  }
  if (::fsync(fd_) != 0) throw error(std::string("write failed: ") + std::strerror(errno));
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) throw error(std::string("write failed: ") + std::strerror(errno));
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw error(std::string("cannot move the finished file into place: ") + std::strerror(errno));
  committed_ = true;
}

void check_output_path(const std::string& path, const std::string& what) {
  const AtomicOutput probe(path, what);
}

void write_file_atomically(const std::string& path, const std::string& what,
                           const std::function<void(std::ostream&)>& write) {
  AtomicOutput out(path, what);
  write(out.stream());
  out.commit();
}

void write_file_atomically(const std::string& path, const std::string& what, const std::string& text) {
  write_file_atomically(path, what, [&text](std::ostream& out) { out << text; });
}

} // namespace lightsim
