#pragma once
// A cursor over the scenario's YAML tree that knows where it is: the file, the dotted key
// ("cluster.pools.0.tp") and the line, so every check can throw a ConfigError that points
// at the offending text. Values replaced by --set are reported as coming from "--set".
// sim/scenario is the yaml-cpp user; besides it only the search-space file (study/search_space.cpp)
// and inference-perf's config.yaml (workload/benchmark) are read with yaml-cpp.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace servesim {

// What every Field of one load shares.
struct LoadContext {
  std::string file;                     // the scenario file as the user named it
  std::vector<std::string> overridden;  // dotted keys replaced or created by --set

  // True when `key` is an overridden key or lies inside one (segment-wise prefix).
  bool is_overridden(const std::string& key) const;
};

class Field {
 public:
  // `key_mark` is where the key naming this value sits (the parent's line for a list item).
  Field(const LoadContext& ctx, YAML::Node node, std::string key, YAML::Mark key_mark);

  const std::string& key() const { return key_; }
  const LoadContext& context() const { return *ctx_; }
  const YAML::Node& node() const { return node_; }
  // 1-based line of the value (0 when it came from --set or has no position).
  int line() const;
  int column() const;
  // "--set" for overridden values, else the scenario file.
  const std::string& file() const;

  // Errors located at the value, or at the key that names it (for "missing key" errors).
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_at_key(const std::string& message) const;

  bool is_null() const { return !node_.IsDefined() || node_.IsNull(); }
  bool is_map() const { return node_.IsMap(); }
  bool is_list() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }

  // --- mappings ---
  // Fails unless this is a mapping; then fails on the first duplicate key or key not in
  // `valid` ("unknown key 'polcy'; did you mean 'policy'?"), located at that key.
  void expect_map(const std::vector<std::string>& valid) const;
  // The child under `name`, if present (a key with an empty value counts as present).
  std::optional<Field> get(const std::string& name) const;
  // The child under `name`, or a "missing required key" error at this mapping's key.
  Field require(const std::string& name) const;
  bool has(const std::string& name) const { return get(name).has_value(); }
  // The keys in file order.
  std::vector<std::string> keys() const;

  // --- lists ---
  std::vector<Field> items() const;  // fails unless this is a list

  // --- scalars (each fails with the key and a "got ..." description on a wrong type) ---
  std::string as_string() const;
  double as_double() const;         // finite: NaN and infinities are refused
  std::int64_t as_int() const;      // integral (4, 4.0 and 1e3 are fine; 4.5 is not)
  std::uint64_t as_uint64() const;  // for seeds: the full 64-bit range
  bool as_bool() const;
  Tick as_duration_ns() const;   // "250ms", "2s", bare number = seconds
  double as_duration_s() const;  // same, in seconds without rounding to ns

  // Range helpers: the value, or an error "must be > 0, got -2".
  double positive_double() const;
  double non_negative_double() const;
  std::int64_t int_at_least(std::int64_t lowest) const;

  // A short description of what the node is, for "expected X, got Y" messages.
  std::string describe() const;

 private:
  YAML::Mark mark() const;  // of the value, or of its key when the value is empty

  const LoadContext* ctx_;
  YAML::Node node_;
  std::string key_;
  YAML::Mark key_mark_;
};

// The root of a document as a Field with an empty key.
Field root_field(const LoadContext& ctx, const YAML::Node& root);

// A number as text without trailing zeros ("4", "0.6"), for messages and summaries.
std::string format_number(double value);

}  // namespace servesim
