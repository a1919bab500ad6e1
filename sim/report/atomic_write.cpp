#include "sim/report/atomic_write.h"

#include <filesystem>
#include <fstream>

#include "sim/core/errors.h"

namespace fs = std::filesystem;

namespace servesim {

void write_file_atomically(const std::string& path, const std::string& option,
                           const std::function<void(std::ostream&)>& write) {
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw ConfigError(target.parent_path().string(), 0, option, "cannot create the folder: " + ec.message());
  }
  const fs::path tmp = target.string() + ".partial";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) throw ConfigError(tmp.string(), 0, option, "cannot open for writing");
    write(f);
    f.flush();
    if (!f) {
      fs::remove(tmp, ec);
      throw ConfigError(tmp.string(), 0, option, "cannot write (disk full?)");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw ConfigError(target.string(), 0, option, "cannot rename the finished file into place");
  }
}

}  // namespace servesim
