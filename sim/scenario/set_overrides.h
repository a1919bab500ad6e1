#pragma once
// `--set KEY=VALUE`: replaces (or creates) one value of the parsed scenario tree before it
// is validated, so an overridden value is checked exactly like one written in the file.
// KEY is a dotted path whose numeric parts index lists (`cluster.pools.0.replicas`);
// VALUE is parsed as YAML, so `{fixed: 5}` and `[1, 2]` work.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

namespace servesim {

class ConfigError;

struct Override {
  std::string key;    // dotted path as written
  std::string value;  // YAML text
};

// Splits "KEY=VALUE" at the first '='. Throws option_error("--set", text, ...) when there
// is no '=' or the key is empty or has an empty segment ("a..b").
Override parse_override(const std::string& text);

// Applies one override to `root` (a mapping). Missing mapping keys along the path are
// created; a list index out of range, an index into something that is not a list, or a
// VALUE that is not valid YAML throws option_error("--set", KEY, ...).
// Returns the canonical key (list indices without leading zeros) of the outermost node the
// override replaced or created: the key itself, or for `a.b.c=1` without an `a`, just "a".
// Everything under that key came from --set; the loader attributes its errors to "--set".
std::string apply_override(YAML::Node& root, const Override& o);

// A study sets `study_key` after the user's --set items (a sweep axis, a search-space key,
// capacity's rate knob), so a --set of the same key, or of a key under it, would be
// overwritten on every run without a word. Throws option_error("--set", KEY, ...) naming
// both; `by` says what sets it ("the sweep axis").
void check_set_not_overwritten(const std::vector<std::string>& sets, const std::string& study_key,
                               const std::string& by);

// An error about a key given with --set, however it was raised: by apply_override,
// option_error("--set", KEY, MESSAGE), or by the loader at a value --set replaced (file
// "--set", key KEY). A study that sets keys itself (search's space) reports it where it
// wrote the value instead.
struct SetError {
  std::string key;      // the dotted scenario key
  std::string message;  // what is wrong with it
};
// The key and message of a --set error; nullopt for any other error.
std::optional<SetError> set_error_of(const ConfigError& e);

}  // namespace servesim
