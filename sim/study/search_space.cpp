#include "sim/study/search_space.h"

#include <set>

#include <yaml-cpp/yaml.h>

#include "sim/core/errors.h"
#include "sim/scenario/spec_yaml.h"

namespace servesim {

namespace {

SpaceMark mark_of(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  return {m.line + 1, m.column + 1};
}

// One alternative as the text --set parses back: flow style on one line, so a block-style
// pool written over several lines in the space file becomes `{name: main, replicas: 2}`.
std::string flow_text(const YAML::Node& node) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << node;
  return e.c_str();
}

}  // namespace

SearchSpace load_search_space(const std::string& path) {
  const YAML::Node doc = load_spec_yaml(path, "--space");
  const std::string example = "e.g. 'cluster.pools.0.replicas: [1, 2, 3, 4]'";
  if (!doc.IsMap() || doc.size() == 0)
    throw ConfigError(path, doc.IsDefined() && !doc.IsNull() ? mark_of(doc).line : 0, "",
                      "a search space is a mapping from scenario keys to lists of candidate values, " + example);

  SearchSpace space;
  space.path = path;
  std::set<std::string> seen;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const SpaceMark key_mark = mark_of(it->first);
    if (!it->first.IsScalar() || it->first.Scalar().empty())
      throw ConfigError(path, key_mark.line, "", "a key must be a dotted scenario path, " + example, key_mark.column);
    const std::string key = it->first.Scalar();
    if (key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
      throw ConfigError(path, key_mark.line, key, "the key has an empty part between dots", key_mark.column);
    if (!seen.insert(key).second)
      throw ConfigError(path, key_mark.line, key, "the key appears twice", key_mark.column);
    // A copy (a Node is a handle): `it->second` lives in the proxy that operator-> returns,
    // which is gone at the end of this statement (ASan: stack-use-after-scope).
    const YAML::Node list = it->second;
    const SpaceMark value_mark = mark_of(list);
    if (!list.IsSequence())
      throw ConfigError(path, value_mark.line, key,
                        "expected a list of candidate values (write one value as [VALUE]), " + example,
                        value_mark.column);
    if (list.size() == 0) throw ConfigError(path, value_mark.line, key, "the list of candidate values is empty", value_mark.column);
    SweepAxis axis{key, {}};
    std::vector<SpaceMark> marks;
    for (const auto& v : list) {
      if (v.IsNull()) throw ConfigError(path, mark_of(v).line, key, "a candidate value is empty", mark_of(v).column);
      axis.values.push_back(flow_text(v));
      marks.push_back(mark_of(v));
    }
    space.axes.push_back(std::move(axis));
    space.key_marks.push_back(key_mark);
    space.value_marks.push_back(std::move(marks));
  }

  std::size_t count = 1;
  for (const auto& a : space.axes) {
    count *= a.values.size();
    if (count > kMaxSearchCandidates)
      throw ConfigError(path, 0, "", "the space holds more than " + std::to_string(kMaxSearchCandidates) +
                                         " candidates; split it (e.g. one search per hardware type)");
  }
  return space;
}

int space_axis_of_key(const SearchSpace& space, const std::string& error_key) {
  int best = -1;
  std::size_t best_length = 0;
  for (std::size_t i = 0; i < space.axes.size(); ++i) {
    const std::string& k = space.axes[i].key;
    const bool match = error_key == k || (error_key.size() > k.size() && error_key.compare(0, k.size(), k) == 0 &&
                                          error_key[k.size()] == '.');
    if (match && k.size() >= best_length) {
      best = static_cast<int>(i);
      best_length = k.size();
    }
  }
  return best;
}

}  // namespace servesim
