#include "sim/core/errors.h"

namespace servesim {

std::string format_config_error(const std::string& file, int line, int column,
                                const std::string& key, const std::string& message) {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) {
      out += ":" + std::to_string(line);
      if (column > 0) out += ":" + std::to_string(column);
    }
    out += ": ";
  }
  if (!key.empty()) out += key + ": ";
  out += message;
  return out;
}

ConfigError::ConfigError(std::string file, int line, std::string key, std::string message,
                         int column)
    : std::runtime_error(format_config_error(file, line, column, key, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      key_(std::move(key)),
      message_(std::move(message)) {}

ConfigError option_error(const std::string& option, const std::string& value, const std::string& message) {
  return ConfigError("", 0, option, value + ": " + message);
}

}  // namespace servesim
