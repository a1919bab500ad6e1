#pragma once
// Reading a text line with a bound on its length. std::getline keeps reading until it meets
// a newline, so one line of a multi-gigabyte file without newlines (binary garbage, a
// corrupted export) would be read whole into memory; trace readers stream, and a row of
// any real trace is a few kilobytes. kMaxLineBytes is far above any real row and still a
// small, fixed amount of memory.
#include <cstddef>
#include <istream>
#include <string>

namespace servesim {

inline constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;  // 16 MiB

enum class LineRead { ok, end, too_long };

// Reads the next line into `line`, without its '\n'. `end` when the input has no more
// characters; `too_long` (with the first max_bytes characters in `line`) when the line
// goes on past max_bytes, leaving the stream in the middle of it.
inline LineRead read_bounded_line(std::istream& in, std::string& line, std::size_t max_bytes = kMaxLineBytes) {
  line.clear();
  char chunk[4096];
  for (;;) {
    in.getline(chunk, sizeof chunk);
    const auto extracted = static_cast<std::size_t>(in.gcount());
    if (in.bad()) return LineRead::end;
    if (in.eof()) {  // the last line, with no newline after it (or nothing at all)
      line.append(chunk, extracted);
      return extracted == 0 && line.empty() ? LineRead::end : LineRead::ok;
    }
    if (in.fail()) {  // the chunk filled up before the newline: more of this line follows
      in.clear();
      line.append(chunk, extracted);
    } else {  // the newline was extracted (and counted) but not stored
      line.append(chunk, extracted - 1);
      return line.size() > max_bytes ? LineRead::too_long : LineRead::ok;
    }
    if (line.size() > max_bytes) return LineRead::too_long;
  }
}

}  // namespace servesim
