#include "sim/study/json_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/errors.h"

namespace servesim {

nlohmann::ordered_json read_json_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw ConfigError(path, 0, "", "file not found");
  if (std::filesystem::is_directory(path, ec)) throw ConfigError(path, 0, "", "is a folder; expected a JSON file");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw ConfigError(path, 0, "", "cannot read the file");
  const std::string s = text.str();
  try {
    return nlohmann::ordered_json::parse(s);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based; count the newlines before it for a line number users can find.
    const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, s.size());
    const int line = 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    throw ConfigError(path, line, "", "not valid JSON: " + std::string(e.what()));
  } catch (const nlohmann::json::exception& e) {  // out_of_range for a number like 1e400
    throw ConfigError(path, 0, "", "not valid JSON: " + std::string(e.what()));
  }
}

}  // namespace servesim
