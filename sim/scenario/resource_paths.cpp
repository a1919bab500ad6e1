#include "sim/scenario/resource_paths.h"

#ifdef SERVESIM_PACKAGED_RESOURCES
#include <dlfcn.h>
#endif

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "sim/core/errors.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/core/text.h"

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

}  // namespace

std::vector<std::pair<std::string, std::string>> hardware_aliases() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [alias, profile] : kHardwareAliases)
    if (std::string(alias) != profile) out.emplace_back(alias, profile);
  return out;
}

#ifdef SERVESIM_PACKAGED_RESOURCES
// An installed Python package (setup.py) carries its own copy of models/, configs/, data/
// and vendor/ in SERVESIM_PACKAGED_RESOURCES beside the extension module, because the
// source tree it was built from may be gone; this finds the module's file through the
// dynamic loader.
static std::optional<fs::path> packaged_root() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&packaged_root), &info) == 0 || info.dli_fname == nullptr) return std::nullopt;
  const fs::path root = fs::path(info.dli_fname).parent_path() / SERVESIM_PACKAGED_RESOURCES;
  if (!is_dir(root / "models")) return std::nullopt;
  return root;
}
#endif

std::string resource_root() {
  if (const char* home = std::getenv("SERVESIM_HOME"); home != nullptr && *home != '\0') {
    return home;
  }
#ifdef SERVESIM_PACKAGED_RESOURCES
  if (const auto packaged = packaged_root()) return packaged->string();
#endif
  const fs::path built = build_tree_root();
  if (built.is_absolute() && is_dir(built / "models")) return built.string();
  return ".";
}

namespace {

// ./x and ../x name a file relative to where they were written, as a shell reads them.
bool explicitly_relative(const std::string& given) {
  return given.rfind("./", 0) == 0 || given.rfind("../", 0) == 0 || given == "." || given == "..";
}

std::optional<fs::path> bundled_file(const std::string& folder, const std::string& given) {
  const fs::path root(resource_root());
  if (folder.empty()) {
    if (is_file(root / given)) return root / given;
    return std::nullopt;
  }
  const fs::path dir = root / folder;
  for (const fs::path& p : {dir / (given + ".yaml"), dir / given, root / given})
    if (is_file(p)) return p;
  if (folder == "configs/hardware") {
    const std::string key = ascii_lower(given);
    for (const auto& [alias, profile] : kHardwareAliases) {
      const fs::path aliased = dir / (std::string(profile) + ".yaml");
      if (key == alias && is_file(aliased)) return aliased;
    }
  }
  return std::nullopt;
}

void add_distinct(std::vector<FoundFile>& found, const fs::path& path, const std::string& where) {
  for (const FoundFile& f : found) {
    std::error_code ec;
    if (fs::equivalent(f.path, path, ec)) return;
  }
  found.push_back({path.string(), where});
}

}  // namespace

std::vector<FoundFile> find_resource(const std::string& folder, const std::string& given,
                                     const std::vector<SearchBase>& bases) {
  std::vector<FoundFile> found;
  if (given.empty()) return found;
  const fs::path p(given);
  if (p.is_absolute()) {
    if (is_file(p)) found.push_back({given, "as given"});
    return found;
  }
  for (const SearchBase& base : bases) {
    // A base folder "" is the working directory: the path stays as the user wrote it.
    const fs::path candidate = base.folder.empty() ? p : fs::path(base.folder) / p;
    if (is_file(candidate)) add_distinct(found, candidate, base.where);
  }
  if (!explicitly_relative(given))
    if (auto bundled = bundled_file(folder, given)) add_distinct(found, *bundled, "bundled");
  return found;
}

std::string ambiguous_resource_message(const std::string& given, const std::vector<FoundFile>& found) {
  std::string message = "'" + given + "' names " + std::to_string(found.size()) + " files: ";
  for (std::size_t i = 0; i < found.size(); ++i) {
    message += (i == 0 ? "" : i + 1 == found.size() ? " and " : ", ") + found[i].path + " (" + found[i].where + ")";
  }
  message += "; give an absolute path";
  // ./NAME names only the files beside the bases, so it picks one when just one is there.
  const auto beside = std::count_if(found.begin(), found.end(), [](const FoundFile& f) { return f.where != "bundled"; });
  if (!explicitly_relative(given) && beside == 1)
    message += ", or ./" + given + " for the one " + found.front().where;
  return message;
}

std::optional<std::string> resolve_resource(const std::string& folder, const std::string& name_or_path) {
  const std::vector<FoundFile> found = find_resource(folder, name_or_path, {{"", "in the working directory"}});
  if (found.empty()) return std::nullopt;
  if (found.size() > 1) throw ConfigError("", 0, "", ambiguous_resource_message(name_or_path, found));
  return found.front().path;
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
