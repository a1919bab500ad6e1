#pragma once
// Bad input is reported with ConfigError at the loading boundary. It carries the file,
// the line (1-based, 0 if unknown), the column and the dotted key, so the CLI can print
// "file:line:col: key: message" and exit 2.
#include <stdexcept>
#include <string>

namespace servesim {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, int line, std::string key, std::string message, int column = 0);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string key_;
  std::string message_;
};

// A bad value of a command-line option: no file, the option in the key slot, and the value
// before the message, so it prints "--jobs: 0: must be at least 1". A check below the CLI
// (a study's or the scenario loader's) throws it for the option its text came from.
ConfigError option_error(const std::string& option, const std::string& value, const std::string& message);

// Builds "file:line:col: key: message" (parts left out when unknown).
std::string format_config_error(const std::string& file, int line, int column,
                                const std::string& key, const std::string& message);

}  // namespace servesim
