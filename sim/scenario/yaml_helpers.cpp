#include "sim/scenario/yaml_helpers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/duration.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/core/text.h"

namespace servesim {

namespace {

std::string child_key(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "." + name;
}

// YAML and strtod spell the non-finite values in several ways; all are refused by name so
// the message can say why rather than "not a number".
bool names_non_finite(const std::string& text) {
  static const std::set<std::string> kNames = {".nan",     "nan",       ".inf",     "+.inf",
                                               "-.inf",    "inf",       "+inf",     "-inf",
                                               "infinity", "+infinity", "-infinity"};
  return kNames.count(ascii_lower(text)) > 0;
}

}  // namespace

bool LoadContext::is_overridden(const std::string& key) const {
  for (const std::string& o : overridden) {
    if (key == o) return true;
    if (key.size() > o.size() && key.compare(0, o.size(), o) == 0 && key[o.size()] == '.') {
      return true;
    }
  }
  return false;
}

Field::Field(const LoadContext& ctx, YAML::Node node, std::string key, YAML::Mark key_mark)
    : ctx_(&ctx), node_(std::move(node)), key_(std::move(key)), key_mark_(key_mark) {}

Field root_field(const LoadContext& ctx, const YAML::Node& root) {
  YAML::Mark mark;  // line 0, column 0: the start of the file
  return Field(ctx, root, "", mark);
}

const std::string& Field::file() const {
  static const std::string kSetFile = "--set";
  return ctx_->is_overridden(key_) ? kSetFile : ctx_->file;
}

// A key with no value (`rate:`) gets a null node positioned at the next token, often on a
// later line; the key's own position is where the user has to look.
YAML::Mark Field::mark() const {
  if (!node_.IsDefined() || node_.IsNull() || node_.Mark().is_null()) return key_mark_;
  return node_.Mark();
}

int Field::line() const {
  if (ctx_->is_overridden(key_)) return 0;
  const YAML::Mark m = mark();
  return m.is_null() ? 0 : m.line + 1;
}

int Field::column() const {
  if (ctx_->is_overridden(key_)) return 0;
  const YAML::Mark m = mark();
  return m.is_null() ? 0 : m.column + 1;
}

void Field::fail(const std::string& message) const {
  throw ConfigError(file(), line(), key_, message, column());
}

void Field::fail_at_key(const std::string& message) const {
  if (ctx_->is_overridden(key_)) throw ConfigError(file(), 0, key_, message);
  if (key_mark_.is_null()) fail(message);
  throw ConfigError(ctx_->file, key_mark_.line + 1, key_, message, key_mark_.column + 1);
}

std::string Field::describe() const {
  if (is_null()) return "nothing";
  if (node_.IsMap()) return "a mapping";
  if (node_.IsSequence()) return "a list";
  return "'" + node_.Scalar() + "'";
}

void Field::expect_map(const std::vector<std::string>& valid) const {
  if (!node_.IsMap()) fail("expected a mapping (key: value), got " + describe());
  std::set<std::string> seen;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (!it->first.IsScalar()) fail("keys must be plain words, got a complex key");
    const std::string name = it->first.Scalar();
    const Field child(*ctx_, it->second, child_key(key_, name), it->first.Mark());
    if (!seen.insert(name).second) child.fail_at_key("duplicate key '" + name + "'");
    if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
      child.fail_at_key(unknown_choice_message("key", "keys", name, valid));
    }
  }
}

std::optional<Field> Field::get(const std::string& name) const {
  if (!node_.IsMap()) return std::nullopt;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == name) {
      return Field(*ctx_, it->second, child_key(key_, name), it->first.Mark());
    }
  }
  return std::nullopt;
}

Field Field::require(const std::string& name) const {
  if (auto child = get(name)) return *child;
  fail_at_key("missing required key '" + name + "'");
}

std::vector<std::string> Field::keys() const {
  std::vector<std::string> out;
  if (!node_.IsMap()) return out;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar()) out.push_back(it->first.Scalar());
  }
  return out;
}

std::vector<Field> Field::items() const {
  if (!node_.IsSequence()) fail("expected a list, got " + describe());
  std::vector<Field> out;
  std::size_t index = 0;
  for (auto it = node_.begin(); it != node_.end(); ++it, ++index) {
    const YAML::Node item = *it;
    out.emplace_back(*ctx_, item, child_key(key_, std::to_string(index)),
                     item.IsDefined() ? item.Mark() : key_mark_);
  }
  return out;
}

std::string Field::as_string() const {
  if (!node_.IsScalar()) fail("expected a text value, got " + describe());
  return node_.Scalar();
}

double Field::as_double() const {
  if (!node_.IsScalar()) fail("expected a number, got " + describe());
  const std::string& text = node_.Scalar();
  if (names_non_finite(text)) fail("must be a finite number, got '" + text + "'");
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    fail("expected a number, got '" + text + "'");
  }
  if (!std::isfinite(value)) fail("must be a finite number, got '" + text + "'");
  return value;
}

std::int64_t Field::as_int() const {
  if (!node_.IsScalar()) fail("expected a whole number, got " + describe());
  const std::string& text = node_.Scalar();
  std::int64_t value = 0;
  const char* begin = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  const auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), value);
  if (ec == std::errc() && ptr == text.data() + text.size()) return value;
  // Also "1e6" and "4.0": exact integers written as floating point.
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(d) ||
      std::floor(d) != d) {
    fail("expected a whole number, got '" + text + "'");
  }
  if (std::fabs(d) > 9.0e15) fail("whole number '" + text + "' is too large");
  return static_cast<std::int64_t>(d);
}

std::uint64_t Field::as_uint64() const {
  if (!node_.IsScalar()) fail("expected a whole number, got " + describe());
  const std::string& text = node_.Scalar();
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && ptr == text.data() + text.size()) return value;
  const std::int64_t as_signed = as_int();
  if (as_signed < 0) fail("must be >= 0, got " + text);
  return static_cast<std::uint64_t>(as_signed);
}

bool Field::as_bool() const {
  if (node_.IsScalar()) {
    const std::string text = ascii_lower(node_.Scalar());
    if (text == "true" || text == "yes" || text == "on") return true;
    if (text == "false" || text == "no" || text == "off") return false;
  }
  fail("expected true or false, got " + describe());
}

double Field::as_duration_s() const {
  if (!node_.IsScalar()) fail("expected a duration like 250ms or 2s, got " + describe());
  const std::string& text = node_.Scalar();
  if (names_non_finite(text)) fail("must be a finite duration, got '" + text + "'");
  const std::optional<double> seconds = parse_duration_seconds(text);
  if (!seconds) fail("bad duration '" + text + "': " + kDurationUnitsHelp);
  return *seconds;
}

Tick Field::as_duration_ns() const {
  if (!node_.IsScalar()) fail("expected a duration like 250ms or 2s, got " + describe());
  as_duration_s();  // the same checks, with this field's messages
  return parse_duration(node_.Scalar(), file(), line(), key_);
}

double Field::positive_double() const {
  const double v = as_double();
  if (!(v > 0)) fail("must be > 0, got " + node_.Scalar());
  return v;
}

double Field::non_negative_double() const {
  const double v = as_double();
  if (v < 0) fail("must be >= 0, got " + node_.Scalar());
  return v;
}

std::int64_t Field::int_at_least(std::int64_t lowest) const {
  const std::int64_t v = as_int();
  if (v < lowest) fail("must be >= " + std::to_string(lowest) + ", got " + node_.Scalar());
  return v;
}

std::string format_number(double value) {
  std::ostringstream out;
  out.precision(10);
  out << value;
  return out.str();
}

}  // namespace servesim
