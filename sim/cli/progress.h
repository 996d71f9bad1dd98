// Progress: a one-line indicator on stderr for runs that take longer than about a second ("lightsim:
// simulating... 3.2 s"), redrawn in place and erased when the run ends. The CLI turns it on only when
// stderr is a terminal (or with --progress always), so logs and pipes stay clean.
//
// It is not a log: nothing it prints remains once it is destroyed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

namespace lightsim {

class Progress {
public:
  // Disabled: does nothing at all. Enabled: draws on `out` after `delay`, every `period`.
  Progress(bool enabled, std::ostream& out, std::chrono::milliseconds delay = std::chrono::milliseconds(1000),
           std::chrono::milliseconds period = std::chrono::milliseconds(200));
  ~Progress(); // stops the thread and erases the line if one was drawn
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void stage(std::string name); // what is being done now ("placing", "simulating", ...)

private:
  void run();

  std::ostream& out_;
  const std::chrono::milliseconds delay_, period_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string stage_;
  bool done_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

} // namespace lightsim
