#pragma once
// Typed access to the values of a benchmark file, each carrying where it is: its JSON
// pointer (for the line JsonDocument finds) and its path as the user reads it
// ("benchmarks[0].requests.successful[2].prompt_tokens"), so every readers' error is
// "file:line: path: message" without the reader spelling the path out at each step.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/workload/benchmark/json_document.h"

namespace servesim {

class JsonField {
 public:
  // The document's root.
  explicit JsonField(const JsonDocument& document);

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }
  const JsonDocument& document() const { return *document_; }

  [[noreturn]] void fail(const std::string& message) const;

  // Members of an object. `at` requires the member (and this value to be an object);
  // `find` returns nothing when the member is absent or null (Python's None).
  JsonField at(const std::string& key) const;
  std::optional<JsonField> find(const std::string& key) const;
  // Elements of an array.
  std::size_t size() const;  // REQUIRES: array (fails otherwise)
  JsonField at(std::size_t index) const;

  bool is_null() const { return value_->is_null(); }
  void expect_object() const;
  void expect_array() const;

  double number() const;            // any finite JSON number
  double positive() const;          // > 0
  // A time in seconds as a benchmark tool writes it (a perf_counter reading or a Unix
  // timestamp): finite and within +-1e10 s, so that differences fit in int64 nanoseconds.
  double seconds() const;
  // A whole number >= `lowest` (Python writes counts as integers; 4.0 is accepted too).
  std::int64_t count(std::int64_t lowest = 0) const;
  std::string string() const;

 private:
  JsonField(const JsonDocument* document, const nlohmann::json* value, nlohmann::json::json_pointer pointer,
            std::string path);
  std::string got() const;  // " got <the value>" for messages, shortened

  const JsonDocument* document_;
  const nlohmann::json* value_;
  nlohmann::json::json_pointer pointer_;
  std::string path_;
};

// Nanoseconds from `from_s` to `to_s` (seconds), rounded to the nearest nanosecond.
// Unix timestamps are close enough together that the difference of two is exact.
std::int64_t ns_between(double from_s, double to_s);

}  // namespace servesim
