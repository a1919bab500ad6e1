#pragma once
// Shared by the libFuzzer targets in this folder. The loaders under test read files, so each
// input is written to one temporary file per process (rewritten for every input) and the
// loader is pointed at it. The contract being fuzzed (docs/reliability.md): bad input may
// only ever surface as servesim::ConfigError. Any other exception escapes the target and
// libFuzzer reports it ("deadly signal" from std::terminate), as it does crashes, aborts
// (SS_ASSERT), sanitizer reports, timeouts and memory blow-ups.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// A fresh folder of its own under the system temp dir, for inputs that are several files
// side by side (a scenario and the CSV it names; a report folder). Emptied by clear().
class TempFolder {
 public:
  TempFolder() {
    path_ = std::filesystem::temp_directory_path() /
            ("servesim-fuzz-" + std::to_string(::getpid()) + "-folder-" + std::to_string(counter()++));
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  // Writes `size` bytes to the file `name` in the folder; returns its path.
  std::string write(const std::string& name, const void* data, std::size_t size) const {
    const std::string p = (path_ / name).string();
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) {
      std::fprintf(stderr, "fuzz harness: cannot write %s\n", p.c_str());
      std::abort();
    }
    return p;
  }
  std::string write(const std::string& name, const std::string& text) const {
    return write(name, text.data(), text.size());
  }
  // Removes every file in the folder (each input starts from an empty one).
  void clear() const {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(path_, ec)) std::filesystem::remove_all(entry.path(), ec);
  }
  std::string path() const { return path_.string(); }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path path_;
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

// As drain, for a benchmark replay (benchmark_source.h), which may hold requests back
// until earlier ones finish (its max_concurrency): when it has nothing to offer, the oldest
// request in flight finishes 1 ms after the latest arrival, as a server would answer it,
// and the source is asked again. Such a source may offer a time before the one it offered
// last (a request released by a finish, a client's send times read out of order); the
// simulation sends those at once (Simulation::arm_source), so only a negative time is a
// finding here.
inline std::int64_t drain_with_finishes(RequestSource& source, std::int64_t limit = 10'000'000) {
  std::int64_t n = 0;
  Tick previous_ns = 0, now_ns = 0;
  std::vector<RequestSpec> in_flight;
  std::size_t oldest = 0;
  for (;;) {
    const auto next = source.peek_arrival_ns();
    if (!next) {
      if (oldest == in_flight.size()) break;
      now_ns = std::max(now_ns, previous_ns) + 1'000'000;
      source.on_finished(in_flight[oldest++], now_ns);
      continue;
    }
    if (*next < 0) finding("a source offered a time before the start");
    const RequestSpec r = source.pop();
    if (r.arrival_ns != *next) finding("pop() returned another arrival than peek_arrival_ns()");
    if (r.prompt_tokens < 1) finding("a request with an empty prompt");
    if (r.output_tokens < 0) finding("a request with a negative output");
    previous_ns = std::max(previous_ns, *next);
    in_flight.push_back(r);
    if (++n > limit) finding("a finite trace never ended");
  }
  if (!source.exhausted()) finding("a source with nothing to offer and nothing in flight is not exhausted");
  return n;
}

// Splits an input that holds several files: a line "#### NAME" starts the file NAME (one of
// `names`); the text before the first such line is the file `first`. A name not in `names`
// is kept as text of the file before it.
inline std::vector<std::pair<std::string, std::string>> split_files(const std::uint8_t* data, std::size_t size,
                                                                    const std::string& first,
                                                                    const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> files{{first, ""}};
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    const std::string_view line(text.data() + at, end - at);
    bool started = false;
    if (line.rfind("#### ", 0) == 0) {
      std::string name(line.substr(5));
      while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
      for (const std::string& known : names) {
        if (name == known) {
          files.emplace_back(name, "");
          started = true;
        }
      }
    }
    if (!started) files.back().second.append(line);
    at = end;
  }
  return files;
}

}  // namespace servesim::fuzz
