#pragma once
// Helpers for the benchmark-file tests: a temporary report folder, and the line of a piece
// of text found by plain search, so that expected error lines are worked out without the
// JSON reader under test.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

namespace servesim::testing {

// A folder in the temporary directory, removed with everything in it at the end.
class ReportFolder {
 public:
  explicit ReportFolder(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("servesim_bench_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ReportFolder() { std::filesystem::remove_all(path_); }
  ReportFolder(const ReportFolder&) = delete;
  ReportFolder& operator=(const ReportFolder&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

// 1-based line of the first occurrence of `marker` in `text`.
inline int line_with(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  REQUIRE(at != std::string::npos);
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

// `text` with the first occurrence of `from` replaced by `to`.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace servesim::testing
