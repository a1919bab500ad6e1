#pragma once
// A JSON file held whole, with the line of any value found on demand, so that a reader of
// a benchmark file can report "file:line: field: message" for a value that is present but
// wrong. Lines are not kept for every value (a detailed benchmark file has a million
// inter-token gaps): line_of() parses the file again up to the value asked for, which only
// happens on the way to an error.
#include <string>

#include <nlohmann/json.hpp>

namespace servesim {

class JsonDocument {
 public:
  // Reads and parses `path`. Throws ConfigError(path, line, "", ...) when the file is
  // missing, unreadable, empty or not JSON (with the line of the syntax error).
  explicit JsonDocument(std::string path);

  const std::string& path() const { return path_; }
  const nlohmann::json& root() const { return root_; }

  // 1-based line of the value at `pointer` (RFC 6901, e.g. "/ttfts/3"); for a pointer to
  // an absent member, the line of the nearest enclosing value that exists; 0 if none.
  int line_of(const nlohmann::json::json_pointer& pointer) const;

  // Throws ConfigError(path, line_of(pointer), field, message). `field` is what the user
  // reads in the file, e.g. "ttfts[3]" or "benchmarks[0].requests.successful[2].prompt_tokens".
  [[noreturn]] void fail(const nlohmann::json::json_pointer& pointer, const std::string& field,
                         const std::string& message) const;

 private:
  std::string path_;
  std::string text_;
  nlohmann::json root_;
};

}  // namespace servesim
