// JsonField: a value of a benchmark file, its pointer and its readable path.
#include "sim/workload/benchmark/json_fields.h"

#include <cmath>
#include <utility>

#include "sim/core/time.h"

namespace servesim {
namespace {

using json = nlohmann::json;

constexpr double kMaxAbsSeconds = 1e10;
constexpr double kMaxWhole = 9e15;  // below 2^53: every whole number up to here is exact

}  // namespace

JsonField::JsonField(const JsonDocument& document)
    : JsonField(&document, &document.root(), json::json_pointer(), "") {}

JsonField::JsonField(const JsonDocument* document, const json* value, json::json_pointer pointer, std::string path)
    : document_(document), value_(value), pointer_(std::move(pointer)), path_(std::move(path)) {}

void JsonField::fail(const std::string& message) const { document_->fail(pointer_, path_, message); }

std::string JsonField::got() const {
  std::string text = value_->dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return ", got " + text;
}

void JsonField::expect_object() const {
  if (!value_->is_object()) fail(std::string("must be an object") + got());
}

void JsonField::expect_array() const {
  if (!value_->is_array()) fail(std::string("must be a list") + got());
}

JsonField JsonField::at(const std::string& key) const {
  expect_object();
  const std::string path = path_.empty() ? key : path_ + "." + key;
  const auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) {
    const json::json_pointer missing = pointer_ / key;
    document_->fail(missing, path, it == value_->end() ? "missing" : "missing (null)");
  }
  return JsonField(document_, &*it, pointer_ / key, path);
}

std::optional<JsonField> JsonField::find(const std::string& key) const {
  expect_object();
  const auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return JsonField(document_, &*it, pointer_ / key, path_.empty() ? key : path_ + "." + key);
}

std::size_t JsonField::size() const {
  expect_array();
  return value_->size();
}

JsonField JsonField::at(std::size_t index) const {
  expect_array();
  const std::string path = path_ + "[" + std::to_string(index) + "]";
  if (index >= value_->size()) document_->fail(pointer_, path, "missing");
  return JsonField(document_, &(*value_)[index], pointer_ / index, path);
}

double JsonField::number() const {
  if (!value_->is_number()) fail(std::string("must be a number") + got());
  const double x = value_->get<double>();
  if (!std::isfinite(x)) fail(std::string("must be a finite number") + got());
  return x;
}

double JsonField::positive() const {
  const double x = number();
  if (!(x > 0)) fail(std::string("must be > 0") + got());
  return x;
}

double JsonField::seconds() const {
  const double x = number();
  if (std::fabs(x) > kMaxAbsSeconds) fail(std::string("is not a time in seconds (beyond 1e10)") + got());
  return x;
}

std::int64_t JsonField::count(std::int64_t lowest) const {
  const double x = number();
  if (x != std::floor(x) || std::fabs(x) > kMaxWhole) fail(std::string("must be a whole number") + got());
  if (x < static_cast<double>(lowest)) fail("must be >= " + std::to_string(lowest) + got());
  return static_cast<std::int64_t>(x);
}

std::string JsonField::string() const {
  if (!value_->is_string()) fail(std::string("must be a string") + got());
  return value_->get<std::string>();
}

std::int64_t ns_between(double from_s, double to_s) { return ticks_from_seconds(to_s - from_s); }

}  // namespace servesim
