#include "sim/scenario/data_paths.h"

#include <filesystem>
#include <system_error>

namespace servesim {

namespace {

namespace fs = std::filesystem;

// The scenario's folder as the user named it ("" for a scenario in the working directory:
// its folder is the working directory).
std::string scenario_folder(const Field& field) {
  return fs::path(field.context().file).parent_path().string();
}

}  // namespace

std::string where_looked(const Field& field) {
  std::string where;
  for (const SearchBase& base : search_bases(field)) {
    std::error_code ec;
    fs::path folder = fs::absolute(base.folder.empty() ? fs::path(".") : fs::path(base.folder), ec).lexically_normal();
    if (!folder.has_filename() && folder.has_relative_path()) folder = folder.parent_path();  // "/a/b/" -> "/a/b"
    where += base.where + " (" + folder.string() + "), ";
  }
  return where + "bundled under " + resource_root();
}

std::vector<SearchBase> search_bases(const Field& field) {
  std::vector<SearchBase> bases;
  if (field.context().is_overridden(field.key())) bases.push_back({"", "in the working directory"});
  bases.push_back({scenario_folder(field), "beside the scenario"});
  return bases;
}

std::optional<std::string> resolve_scenario_file(const Field& field, const std::string& folder) {
  const std::string given = field.as_string();
  if (given.empty()) field.fail("the name is empty");
  const std::vector<FoundFile> found = find_resource(folder, given, search_bases(field));
  if (found.size() > 1) field.fail(ambiguous_resource_message(given, found));
  if (found.empty()) return std::nullopt;
  return found.front().path;
}

void pin_pool_files(YAML::Node pool, const std::string& scenario_file) {
  const fs::path folder = fs::path(scenario_file).parent_path();
  // The pool keys that name files (model_refs.h, engine_parse.cpp).
  const std::vector<std::vector<std::string>> file_keys = {
      {"model"}, {"hardware"}, {"engine", "preset"}, {"engine", "speculative", "draft"}, {"cost_model", "table"}};
  for (const std::vector<std::string>& keys : file_keys) {
    // reset() moves the handle; assigning one Node to another would overwrite the tree.
    YAML::Node node;
    node.reset(pool);
    bool found = true;
    for (const std::string& key : keys) {
      const YAML::Node& lookup = node;  // a const lookup adds no key
      if (!lookup.IsMap() || !lookup[key]) {
        found = false;
        break;
      }
      node.reset(lookup[key]);
    }
    if (!found || !node.IsScalar()) continue;
    const fs::path given(node.Scalar());
    std::error_code ec;
    if (given.is_absolute() || !fs::is_regular_file(folder / given, ec)) continue;
    node = fs::absolute(folder / given, ec).lexically_normal().string();
  }
}

std::string existing_data_path(const Field& field, const std::string& what) {
  const std::string given = field.as_string();
  if (given.empty()) field.fail("the " + what + " path is empty");
  if (auto resolved = resolve_scenario_file(field, "")) return *resolved;
  for (const SearchBase& base : search_bases(field)) {
    std::error_code ec;
    const fs::path p = fs::path(given).is_absolute() || base.folder.empty() ? fs::path(given) : fs::path(base.folder) / given;
    if (fs::is_directory(p, ec)) field.fail(what + " '" + given + "' is a folder, not a file");
  }
  field.fail(what + " '" + given + "' not found (looked " + where_looked(field) + ")");
}

}  // namespace servesim
