#include "sim/report/atomic_write.h"

#include <filesystem>
#include <fstream>

#include "sim/core/errors.h"

namespace fs = std::filesystem;

namespace servesim {

PartialFile::PartialFile(std::string path, std::string option)
    : path_(std::move(path)), partial_(path_ + ".partial"), option_(std::move(option)) {}

PartialFile::PartialFile(PartialFile&& other) noexcept
    : path_(std::move(other.path_)), partial_(std::move(other.partial_)), option_(std::move(other.option_)),
      pending_(other.pending_) {
  other.pending_ = false;
}

PartialFile::~PartialFile() {
  if (!pending_) return;
  std::error_code ec;
  fs::remove(partial_, ec);
}

void PartialFile::commit() {
  std::error_code ec;
  fs::rename(partial_, path_, ec);
  if (ec) throw ConfigError(path_, 0, option_, "cannot rename the finished file into place: " + ec.message());
  pending_ = false;
}

void write_file_atomically(const std::string& path, const std::string& option,
                           const std::function<void(std::ostream&)>& write) {
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw ConfigError(target.parent_path().string(), 0, option, "cannot create the folder: " + ec.message());
  }
  PartialFile file(path, option);
  {
    std::ofstream f(file.partial_path(), std::ios::binary);
    if (!f) throw ConfigError(file.partial_path(), 0, option, "cannot open for writing");
    write(f);
    f.flush();
    if (!f) throw ConfigError(file.partial_path(), 0, option, "cannot write (disk full?)");
  }
  file.commit();
}

}  // namespace servesim
