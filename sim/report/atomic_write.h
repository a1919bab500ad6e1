#pragma once
// Result files written whole or not at all: the text goes to PATH.partial, which is renamed
// to PATH once complete, so an interrupted sweep never leaves a table that looks finished.
#include <functional>
#include <iosfwd>
#include <string>

namespace servesim {

// A result file built as a run goes (requests.csv, timeseries.csv, trace.json): written to
// partial_path() (PATH.partial) and renamed to PATH by commit(); destroyed uncommitted, the
// partial file is removed, so an interrupted run leaves no file that looks complete.
class PartialFile {
 public:
  // `option` names the flag that chose the path (--out), for errors.
  PartialFile(std::string path, std::string option);
  PartialFile(PartialFile&& other) noexcept;
  PartialFile& operator=(PartialFile&&) = delete;
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;
  ~PartialFile();

  const std::string& path() const { return path_; }
  const std::string& partial_path() const { return partial_; }
  // Renames the finished file into place. Throws ConfigError(path, 0, option, ...).
  void commit();

 private:
  std::string path_, partial_, option_;
  bool pending_ = true;  // the partial file is ours to remove
};

// Creates the parent folder if needed. Throws ConfigError(path, 0, option, ...) when the
// folder or file cannot be written; `option` names the flag that chose the path (--out).
void write_file_atomically(const std::string& path, const std::string& option,
                           const std::function<void(std::ostream&)>& write);

}  // namespace servesim
