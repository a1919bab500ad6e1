#include "sim/scenario/spec_yaml.h"

#include <climits>
#include <filesystem>

#include <system_error>
#include <vector>

#include "sim/core/errors.h"
#include "sim/scenario/resource_paths.h"

namespace servesim {

std::string resolve_spec_path(const std::string& folder, const std::string& what,
                                const std::string& name_or_path) {
  const std::vector<FoundFile> found = find_resource(folder, name_or_path, {{"", "in the working directory"}});
  if (found.size() > 1) throw ConfigError("", 0, what, ambiguous_resource_message(name_or_path, found));
  if (!found.empty()) return found.front().path;
  namespace fs = std::filesystem;
  const std::string ext = fs::path(name_or_path).extension().string();
  if (name_or_path.find('/') != std::string::npos || ext == ".yaml" || ext == ".yml" ||
      ext == ".json") {
    throw ConfigError(name_or_path, 0, what, "no such file");
  }
  throw ConfigError("", 0, what, unknown_bundled_name(folder, what, name_or_path));
}

YAML::Node load_spec_yaml(const std::string& path, const std::string& key) {
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError(path, 0, key, "cannot read the file");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(path, e.mark.line + 1, "", "YAML syntax error: " + e.msg, e.mark.column + 1);
  }
}

SpecFile::SpecFile(const std::string& path, const std::vector<std::string>& keys)
    : doc_(load_spec_yaml(path)), ctx_{path, {}}, root_(root_field(ctx_, doc_)) {
  root_.expect_map(keys);
}

std::string SpecFile::name() const {
  return root_.has("name") ? root_.require("name").as_string() : spec_stem(ctx_.file);
}

std::string SpecFile::source() const {
  const auto f = root_.get("source");
  return f ? f->as_string() : "";
}

int positive_count(const Field& field) {
  const std::int64_t v = field.int_at_least(1);
  if (v > INT_MAX) field.fail("is too large, got " + std::to_string(v));
  return static_cast<int>(v);
}

std::string spec_stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

}  // namespace servesim
