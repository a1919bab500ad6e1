#pragma once
// Result files written whole or not at all: the text goes to PATH.partial, which is renamed
// to PATH once complete, so an interrupted sweep never leaves a table that looks finished.
#include <functional>
#include <iosfwd>
#include <string>

namespace servesim {

// Creates the parent folder if needed. Throws ConfigError(path, 0, option, ...) when the
// folder or file cannot be written; `option` names the flag that chose the path (--out).
void write_file_atomically(const std::string& path, const std::string& option,
                           const std::function<void(std::ostream&)>& write);

}  // namespace servesim
