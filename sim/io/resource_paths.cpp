#include "sim/io/resource_paths.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace servesim {

namespace {

namespace fs = std::filesystem;

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The source tree this file was compiled from: <root>/sim/io/resource_paths.cpp. CMake
// passes absolute source paths, so __FILE__ locates the checkout without a configure-time
// definition; SERVESIM_SOURCE_DIR, where the build defines it, takes precedence.
fs::path build_tree_root() {
#ifdef SERVESIM_SOURCE_DIR
  return fs::path(SERVESIM_SOURCE_DIR);
#else
  return fs::path(__FILE__).parent_path().parent_path().parent_path();
#endif
}

}  // namespace

std::string resource_root() {
  if (const char* home = std::getenv("SERVESIM_HOME"); home != nullptr && *home != '\0') {
    return home;
  }
  const fs::path built = build_tree_root();
  if (built.is_absolute() && is_dir(built / "models")) return built.string();
  return ".";
}

std::optional<std::string> resolve_resource(const std::string& folder,
                                            const std::string& name_or_path) {
  if (name_or_path.empty()) return std::nullopt;
  if (is_file(name_or_path)) return name_or_path;
  const fs::path dir = fs::path(resource_root()) / folder;
  const fs::path with_extension = dir / (name_or_path + ".yaml");
  if (is_file(with_extension)) return with_extension.string();
  if (is_file(dir / name_or_path)) return (dir / name_or_path).string();
  return std::nullopt;
}

std::string resolve_data_path(const std::string& path, const std::string& scenario_file) {
  if (path.empty() || is_file(path)) return path;
  const fs::path p(path);
  if (p.is_absolute()) return path;
  const fs::path beside = fs::path(scenario_file).parent_path() / p;
  if (is_file(beside)) return beside.string();
  const fs::path bundled = fs::path(resource_root()) / p;
  if (is_file(bundled)) return bundled.string();
  return path;
}

}  // namespace servesim
