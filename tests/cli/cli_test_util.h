#pragma once
// Runs the real `servesim` binary, as a user would, and captures exit code and output.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace servesim::testing {

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline CliResult run_cli(const std::string& arguments) {
  const std::string command = std::string("cd '") + SERVESIM_SOURCE_DIR + "' && '" + SERVESIM_BINARY + "' " + arguments + " 2>&1";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe)) result.output += buf.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A fresh folder under the system temp dir, removed when the object goes.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::temp_directory_path() / ("servesim-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path write(const std::string& file, const std::string& text) const {
    std::ofstream(path / file) << text;
    return path / file;
  }
};

}  // namespace servesim::testing
