#pragma once
// Shared by the model and hardware loaders: reading one small spec YAML file into the
// Field cursor of yaml_helpers.h, with parse errors turned into ConfigError.
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/scenario/yaml_helpers.h"

namespace servesim {

// The file a model or hardware name given on the command line refers to: a path from the
// working directory or a bundled name (find_resource), or a ConfigError that lists the
// bundled names of `folder` or, for a value naming two files, both.
std::string resolve_spec_path(const std::string& folder, const std::string& what,
                              const std::string& name_or_path);

// Parses `path`; a syntax error or unreadable file throws ConfigError naming the file (and
// the line and column of a syntax error). `key` names what gave the path (an option such as
// --space) in the error of a file that cannot be read.
YAML::Node load_spec_yaml(const std::string& path, const std::string& key = "");

// One spec file read whole (a model, hardware profile or engine preset), its root checked
// to be a mapping of only `keys`: the Field cursor at the root, whose errors name the file.
class SpecFile {
 public:
  SpecFile(const std::string& path, const std::vector<std::string>& keys);
  SpecFile(const SpecFile&) = delete;  // root_ points at ctx_
  SpecFile& operator=(const SpecFile&) = delete;

  const Field& root() const { return root_; }
  // `name:`, else the file name without folder and extension.
  std::string name() const;
  // `source:`, else "".
  std::string source() const;
  // A spec (ModelSpec, HardwareSpec) with the two keys every spec file has read into it.
  template <typename Spec>
  Spec named_spec() const {
    Spec spec;
    spec.name = name();
    spec.source = source();
    return spec;
  }

 private:
  YAML::Node doc_;
  LoadContext ctx_;
  Field root_;
};

// A whole number in [1, 2^31), for layer, head and width counts.
int positive_count(const Field& field);

// The file name without folder and extension: the default `name:` of a spec.
std::string spec_stem(const std::string& path);

}  // namespace servesim
