#include "sim/scenario/resource_paths.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

#include "sim/scenario/did_you_mean.h"

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

// The source tree this file was compiled from: <root>/sim/scenario/resource_paths.cpp. CMake
// passes absolute source paths, so __FILE__ locates the checkout without a configure-time
// definition; SERVESIM_SOURCE_DIR, where the build defines it, takes precedence.
fs::path build_tree_root() {
#ifdef SERVESIM_SOURCE_DIR
  return fs::path(SERVESIM_SOURCE_DIR);
#else
  return fs::path(__FILE__).parent_path().parent_path().parent_path();
#endif
}

// Short names people type for the bundled hardware profiles ("h100" for the H100 SXM, the
// form DGX and HGX systems carry; "a100" for the 80 GB SXM). Tried only when no file of
// that name exists, so a profile called h100.yaml would win.
constexpr std::pair<const char*, const char*> kHardwareAliases[] = {
    {"h100", "h100-sxm"},
    {"a100", "a100-80g-sxm"},
    {"h200", "h200"},
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> hardware_aliases() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [alias, profile] : kHardwareAliases)
    if (std::string(alias) != profile) out.emplace_back(alias, profile);
  return out;
}

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
  if (folder == "configs/hardware") {
    const std::string key = lower(name_or_path);
    for (const auto& [alias, profile] : kHardwareAliases) {
      const fs::path aliased = dir / (std::string(profile) + ".yaml");
      if (key == alias && is_file(aliased)) return aliased.string();
    }
  }
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

std::vector<std::string> bundled_names(const std::string& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(resource_root()) / folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string unknown_bundled_name(const std::string& folder, const std::string& what, const std::string& given) {
  const std::vector<std::string> names = bundled_names(folder);
  // The short names count as names: "h10" is closest to "h100", and the list shows them.
  std::vector<std::string> spellings = names;
  std::string aliases;
  if (folder == "configs/hardware" && !names.empty())
    for (const auto& [alias, profile] : hardware_aliases()) {
      spellings.push_back(alias);
      aliases += (aliases.empty() ? "" : ", ") + alias + " = " + profile;
    }
  std::string message = "unknown " + what + " '" + given + "': neither a file nor a bundled name";
  if (auto match = closest_match(given, spellings)) return message + "; did you mean '" + *match + "'?";
  if (names.empty()) return message + " (no " + folder + "/*.yaml under " + resource_root() + ")";
  return message + "; bundled names: " + join_choices(names) + (aliases.empty() ? "" : " (also " + aliases + ")");
}

}  // namespace servesim
