#include "sim/study/sweep_spec.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>

#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/core/text.h"

namespace servesim {

namespace {

// Splits at commas that are not inside (), [], {} or a quoted string: a value is YAML, and
// YAML flow collections contain commas of their own.
std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  char quote = 0;
  for (char ch : text) {
    if (quote) {
      if (ch == quote) quote = 0;
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '[' || ch == '{' || ch == '(') {
      ++depth;
    } else if ((ch == ']' || ch == '}' || ch == ')') && depth > 0) {
      --depth;
    } else if (ch == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
      continue;
    }
    current += ch;
  }
  parts.push_back(current);
  return parts;
}

std::size_t parse_size(const std::string& text, const std::string& whole) {
  std::size_t value = 0;
  const std::string t = trim_blanks(text);
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
    throw option_error("--shard", whole, "expected I/N with whole numbers 0 <= I < N, e.g. 0/4");
  return value;
}

std::vector<std::string> split_dots(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t dot; (dot = key.find('.', from)) != std::string::npos; from = dot + 1)
    parts.push_back(key.substr(from, dot - from));
  parts.push_back(key.substr(from));
  return parts;
}

// Path parts name the same node when their text is equal or both are the same list index
// ("01" and "1"), as --set reads them.
bool same_part(const std::string& a, const std::string& b) {
  const auto index = [](const std::string& t) -> std::optional<std::size_t> {
    std::size_t v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
    return v;
  };
  const auto ia = index(a), ib = index(b);
  return ia && ib ? *ia == *ib : a == b;
}

// Refuses `later` when it names the node `earlier` names, or one under or above it.
void check_two_axes_apart(const std::string& earlier, const std::string& later) {
  const auto a = split_dots(earlier), b = split_dots(later);
  const std::size_t common = std::min(a.size(), b.size());
  for (std::size_t k = 0; k < common; ++k)
    if (!same_part(a[k], b[k])) return;
  if (a.size() == b.size()) throw option_error("--axis", later, "is given as an axis twice");
  const std::string& inner = b.size() > a.size() ? later : earlier;
  const std::string& outer = b.size() > a.size() ? earlier : later;
  throw option_error("--axis", later,
                     "overlaps the axis " + earlier + " (" + inner + " lies under " + outer +
                         "): every point sets both and the later overwrites the earlier, so one axis would be swept "
                         "in name only; sweep one of them (whole values of " + outer + " can carry " + inner + ")");
}

}  // namespace

SweepAxis parse_axis(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw option_error("--axis", text, "expected KEY=V1,V2,..., e.g. workload.0.arrival.rate=2,4,8");
  SweepAxis axis;
  axis.key = trim_blanks(text.substr(0, eq));
  if (axis.key.empty()) throw option_error("--axis", text, "the key before '=' is empty");
  for (const std::string& part : split_top_level(text.substr(eq + 1))) {
    std::string value = trim_blanks(part);
    if (value.empty())
      throw option_error("--axis", axis.key, "has an empty value (two commas in a row, or one at the end?)");
    axis.values.push_back(std::move(value));
  }
  return axis;
}

void check_axes_apart(const std::vector<SweepAxis>& axes) {
  for (std::size_t j = 0; j < axes.size(); ++j)
    for (std::size_t i = 0; i < j; ++i) check_two_axes_apart(axes[i].key, axes[j].key);
}

const char* sweep_mode_name(SweepMode mode) { return mode == SweepMode::zip ? "zip" : "product"; }

std::size_t sweep_point_count(const std::vector<SweepAxis>& axes, SweepMode mode) {
  if (axes.empty()) throw ConfigError("", 0, "--axis", "a sweep needs at least one --axis KEY=V1,V2,...");
  std::set<std::string> keys;
  for (const auto& axis : axes) {
    if (!keys.insert(axis.key).second) throw option_error("--axis", axis.key, "is given as an axis twice");
    SS_ASSERT(!axis.values.empty(), "parse_axis never returns an axis without values");
  }
  if (mode == SweepMode::zip) {
    for (const auto& axis : axes)
      if (axis.values.size() != axes.front().values.size())
        throw option_error("--axis", axis.key,
                           "has " + std::to_string(axis.values.size()) + " values but '" + axes.front().key +
                               "' has " + std::to_string(axes.front().values.size()) +
                               "; --zip pairs the i-th values of every axis, so all need the same number");
    return axes.front().values.size();
  }
  std::size_t count = 1;
  for (const auto& axis : axes) {
    if (count > kMaxSweepPoints / axis.values.size())
      throw option_error("--axis", axis.key,
                         "the product of the axes has more than " + std::to_string(kMaxSweepPoints) + " points");
    count *= axis.values.size();
  }
  return count;
}

std::vector<std::size_t> sweep_point_indices(const std::vector<SweepAxis>& axes, SweepMode mode,
                                             std::size_t index) {
  std::vector<std::size_t> at(axes.size(), index);
  if (mode == SweepMode::zip) return at;
  // Mixed-radix digits of `index`, the last axis being the least significant.
  for (std::size_t a = axes.size(); a-- > 0;) {
    at[a] = index % axes[a].values.size();
    index /= axes[a].values.size();
  }
  SS_ASSERT(index == 0, "point index beyond the product of the axes");
  return at;
}

std::vector<std::string> sweep_point_overrides(const std::vector<SweepAxis>& axes, SweepMode mode,
                                               std::size_t index) {
  const auto at = sweep_point_indices(axes, mode, index);
  std::vector<std::string> sets;
  for (std::size_t a = 0; a < axes.size(); ++a) sets.push_back(axes[a].key + "=" + axes[a].values[at[a]]);
  return sets;
}

SweepShard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw option_error("--shard", text, "expected I/N with whole numbers 0 <= I < N, e.g. 0/4");
  SweepShard shard{parse_size(text.substr(0, slash), text), parse_size(text.substr(slash + 1), text)};
  if (shard.count == 0 || shard.index >= shard.count)
    throw option_error("--shard", text, "needs 0 <= I < N (shards are numbered from 0)");
  return shard;
}

}  // namespace servesim
