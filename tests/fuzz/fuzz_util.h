#pragma once
// Shared by the libFuzzer targets in this folder. The loaders under test read files, so each
// input is written to one temporary file per process (rewritten for every input) and the
// loader is pointed at it. The contract being fuzzed (docs/reliability.md): bad input may
// only ever surface as servesim::ConfigError. Any other exception escapes the target and
// libFuzzer reports it ("deadly signal" from std::terminate), as it does crashes, aborts
// (SS_ASSERT), sanitizer reports, timeouts and memory blow-ups.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/workload/source.h"

namespace servesim::fuzz {

class TempFile {
 public:
  // A file named `name` in a fresh folder of its own under the system temp dir (the folder
  // matters to loaders that name a model after its folder).
  explicit TempFile(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("servesim-fuzz-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(dir);
    path_ = (dir / name).string();
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(path_).parent_path(), ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  void write(const std::uint8_t* data, std::size_t size) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) {
      std::fprintf(stderr, "fuzz harness: cannot write %s\n", path_.c_str());
      std::abort();
    }
  }
  const std::string& path() const { return path_; }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string path_;
};

// Stops the process in a way libFuzzer reports as a finding, with a message.
[[noreturn]] inline void finding(const char* what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what);
  std::abort();
}

// Pulls every request out of a source, checking what every source promises: arrivals in
// non-decreasing order, prompts of at least one token, outputs of zero or more.
// Returns the number of requests. `limit` guards against a source that never ends.
inline std::int64_t drain(RequestSource& source, std::int64_t limit = 10'000'000) {
  std::int64_t n = 0;
  Tick previous_ns = 0;
  while (const auto next = source.peek_arrival_ns()) {
    if (*next < previous_ns) finding("a source went back in time");
    const RequestSpec r = source.pop();
    if (r.arrival_ns != *next) finding("pop() returned another arrival than peek_arrival_ns()");
    if (r.prompt_tokens < 1) finding("a request with an empty prompt");
    if (r.output_tokens < 0) finding("a request with a negative output");
    previous_ns = *next;
    if (++n > limit) finding("a finite trace never ended");
  }
  if (!source.exhausted()) finding("a source with nothing to offer is not exhausted");
  return n;
}

}  // namespace servesim::fuzz
