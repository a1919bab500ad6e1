#pragma once
// Reading a JSON result file (summary.json, sweep.json) for `compare` and `merge`.
#include <string>

#include <nlohmann/json.hpp>

namespace servesim {

// Parses the file, keeping key order. Throws ConfigError(path, line, "", ...) when it is
// missing, a folder, unreadable or not JSON (with the line of the syntax error).
nlohmann::ordered_json read_json_file(const std::string& path);

}  // namespace servesim
