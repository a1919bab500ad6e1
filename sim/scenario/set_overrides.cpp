#include "sim/scenario/set_overrides.h"

#include <charconv>
#include <optional>

#include "sim/core/errors.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/core/text.h"

namespace servesim {

namespace {

constexpr const char* kSetOption = "--set";

std::vector<std::string> split_path(const std::string& key) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::optional<std::size_t> parse_index(const std::string& part) {
  std::size_t index = 0;
  const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
  if (ec != std::errc() || ptr != part.data() + part.size()) return std::nullopt;
  return index;
}

// "; did you mean 'cluster'?" when `missing` is a near miss of a key `map` has.
std::optional<std::string> hint_for(const YAML::Node& map, const std::string& missing) {
  if (!map.IsMap()) return std::nullopt;
  std::vector<std::string> keys;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar()) keys.push_back(it->first.Scalar());
  }
  if (auto match = closest_match(missing, keys)) return "; did you mean '" + *match + "'?";
  return std::nullopt;
}

}  // namespace

Override parse_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) {
    throw option_error(kSetOption, text, "expected KEY=VALUE, e.g. cluster.pools.0.replicas=4");
  }
  Override o{trim_blanks(text.substr(0, eq)), text.substr(eq + 1)};
  if (o.key.empty()) throw option_error(kSetOption, text, "the key before '=' is empty");
  for (const std::string& part : split_path(o.key)) {
    if (part.empty()) {
      throw option_error(kSetOption, o.key, "the key has an empty part between dots");
    }
  }
  return o;
}

namespace {

// Sets the last part of the key, `leaf`, of the node the walk reached to `value`: an item
// of a list by its number, a key of a mapping. Appends the part as written to `canonical`.
void set_leaf(YAML::Node& current, const std::string& leaf, const YAML::Node& value, const Override& o,
              std::vector<std::string>& canonical) {
  if (current.IsSequence()) {
    const auto index = parse_index(leaf);
    if (!index) {
      throw option_error(kSetOption, o.key,
                         "a list item is selected by number, not '" + leaf + "'");
    }
    if (*index >= current.size()) {
      throw option_error(kSetOption, o.key,
                         "index " + leaf + " is out of range: the list has " +
                             std::to_string(current.size()) + " item(s)");
    }
    current[*index] = value;
    canonical.push_back(std::to_string(*index));
  } else if (current.IsMap() || current.IsNull()) {
    current[leaf] = value;
    canonical.push_back(leaf);
  } else {
    throw option_error(kSetOption, o.key,
                       "its parent is a single value, so it has no key '" + leaf + "'");
  }
}

}  // namespace

std::string apply_override(YAML::Node& root, const Override& o) {
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    throw option_error(kSetOption, o.key, "value '" + o.value + "' is not valid YAML: " + e.msg);
  }
  if (!root.IsMap() && !root.IsNull()) {
    throw option_error(kSetOption, o.key, "the scenario is not a mapping, so no key can be set");
  }

  const std::vector<std::string> parts = split_path(o.key);
  // `reset` rebinds the handle; plain assignment between yaml-cpp nodes would overwrite
  // the node it points at, corrupting the tree while we walk it.
  YAML::Node current;
  current.reset(root);
  std::string walked;
  std::vector<std::string> canonical;
  std::optional<std::size_t> created_at;  // parts of `canonical` up to the first created map
  std::optional<std::string> typo_hint;   // "; did you mean ...?" for the first missing key
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string& part = parts[i];
    const std::string parent = walked;
    walked += (walked.empty() ? "" : ".") + part;
    canonical.push_back(part);
    YAML::Node next;
    if (current.IsSequence()) {
      const auto index = parse_index(part);
      if (!index) {
        throw option_error(kSetOption, o.key,
                           "'" + parent + "' is a list, so '" + part + "' must be an index");
      }
      if (*index >= current.size()) {
        throw option_error(kSetOption, o.key,
                           "index " + part + " is out of range: the list has " +
                               std::to_string(current.size()) + " item(s)");
      }
      next.reset(current[*index]);
      canonical.back() = std::to_string(*index);
    } else if (current.IsMap() || current.IsNull()) {
      if (!current[part] || current[part].IsNull()) {
        // Creating the intermediate mapping keeps `--set stop.time=1h` working without `stop:`.
        if (!typo_hint && !current[part]) typo_hint = hint_for(current, part);
        if (parse_index(parts[i + 1])) {
          throw option_error(kSetOption, o.key,
                             "index " + parts[i + 1] + " is out of range: '" + walked +
                                 "' has no list" + typo_hint.value_or(""));
        }
        current[part] = YAML::Node(YAML::NodeType::Map);
        if (!created_at) created_at = canonical.size();
      }
      next.reset(current[part]);
    } else {
      throw option_error(kSetOption, o.key,
                         "'" + parent + "' is a single value, so it has no key '" + part + "'");
    }
    current.reset(next);
  }

  set_leaf(current, parts.back(), value, o, canonical);
  if (created_at) canonical.resize(*created_at);
  std::string key;
  for (const std::string& part : canonical) key += (key.empty() ? "" : ".") + part;
  return key;
}

void check_set_not_overwritten(const std::vector<std::string>& sets, const std::string& study_key,
                               const std::string& by) {
  const std::vector<std::string> owner = split_path(trim_blanks(study_key));
  // Path parts are equal when their text is, or when both are the same list index ("01", "1").
  const auto same = [](const std::string& a, const std::string& b) {
    const auto ia = parse_index(a), ib = parse_index(b);
    return ia && ib ? *ia == *ib : a == b;
  };
  for (const std::string& text : sets) {
    const Override o = parse_override(text);
    const std::vector<std::string> parts = split_path(o.key);
    if (parts.size() < owner.size()) continue;
    bool under = true;
    for (std::size_t i = 0; i < owner.size() && under; ++i) under = same(parts[i], owner[i]);
    if (!under) continue;
    throw option_error(kSetOption, o.key,
                       (parts.size() == owner.size() ? "is also " : "is under " + study_key + ", ") + by + " " +
                           (parts.size() == owner.size() ? study_key + ", " : "") +
                           "which sets it on every run, so this --set would have no effect; drop one of the two");
  }
}

std::optional<SetError> set_error_of(const ConfigError& e) {
  if (e.file() == kSetOption) return SetError{e.key(), e.message()};
  if (!e.file().empty() || e.key() != kSetOption) return std::nullopt;
  // option_error put the key before the message: "KEY: MESSAGE".
  const auto colon = e.message().find(": ");
  if (colon == std::string::npos) return std::nullopt;
  return SetError{e.message().substr(0, colon), e.message().substr(colon + 2)};
}

}  // namespace servesim
