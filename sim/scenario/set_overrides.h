#pragma once
// `--set KEY=VALUE`: replaces (or creates) one value of the parsed scenario tree before it
// is validated, so an overridden value is checked exactly like one written in the file.
// KEY is a dotted path whose numeric parts index lists (`cluster.pools.0.replicas`);
// VALUE is parsed as YAML, so `{fixed: 5}` and `[1, 2]` work.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace servesim {

struct Override {
  std::string key;    // dotted path as written
  std::string value;  // YAML text
};

// Splits "KEY=VALUE" at the first '='. Throws ConfigError("--set", 0, text, ...) when there
// is no '=' or the key is empty or has an empty segment ("a..b").
Override parse_override(const std::string& text);

// Applies one override to `root` (a mapping). Missing mapping keys along the path are
// created; a list index out of range, an index into something that is not a list, or a
// VALUE that is not valid YAML throws ConfigError with file "--set" and the key.
// Returns the canonical key (list indices without leading zeros) of the outermost node the
// override replaced or created: the key itself, or for `a.b.c=1` without an `a`, just "a".
// Everything under that key came from --set; the loader attributes its errors to "--set".
std::string apply_override(YAML::Node& root, const Override& o);

// A study sets `study_key` after the user's --set items (a sweep axis, a search-space key,
// capacity's rate knob), so a --set of the same key, or of a key under it, would be
// overwritten on every run without a word. Throws ConfigError("--set", 0, KEY, ...) naming
// both; `by` says what sets it ("the sweep axis").
void check_set_not_overwritten(const std::vector<std::string>& sets, const std::string& study_key,
                               const std::string& by);

}  // namespace servesim
