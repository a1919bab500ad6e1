// The two readers behind open_prefix_trace: Mooncake JSON lines (nlohmann-json, one line at
// a time) and the project's csv (CsvReader). Both check every field and stream the file.
#include <charconv>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/core/bounded_line.h"
#include "sim/core/errors.h"
#include "sim/workload/csv_reader.h"
#include "sim/workload/prefix_trace.h"

namespace servesim {
namespace {

// Mooncake's hash ids each cover 512 tokens (FAST'25 trace README).
constexpr std::int64_t kMooncakeBlockTokens = 512;
// 9e9 s (285 years) keeps every arrival exact in int64 nanoseconds.
constexpr double kMaxTraceSeconds = 9.0e9;

std::int64_t max_ids(std::int64_t prompt_tokens, std::int64_t block_tokens) {
  return (prompt_tokens + block_tokens - 1) / block_tokens;
}

class MooncakeReader final : public PrefixTraceReader {
 public:
  explicit MooncakeReader(std::string path) : path_(std::move(path)), in_(path_) {
    if (!in_) throw ConfigError(path_, 0, "trace.path", "cannot open the trace file");
  }

  bool next(PrefixTraceRow& row) override {
    std::string text;
    for (;;) {
      const LineRead got = read_bounded_line(in_, text);
      if (got == LineRead::end) return false;
      ++line_;
      if (got == LineRead::too_long) fail("", "the line is longer than 16 MiB: not a JSON-lines trace?");
      if (!text.empty() && text.back() == '\r') text.pop_back();
      if (text.find_first_not_of(" \t") != std::string::npos) break;  // blank lines are skipped
    }
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) fail("", "expected one JSON object per line");
    const double ms = number(j, "timestamp");
    if (ms < 0) fail("timestamp", "must not be negative");
    if (ms > kMaxTraceSeconds * 1e3) fail("timestamp", "is too large");
    row.time_ns = std::llround(ms * 1e6);
    row.prompt_tokens = whole(j, "input_length", 1);
    row.output_tokens = whole(j, "output_length", 0);
    row.session_id = 0;
    row.hash_ids.clear();
    const auto ids = j.find("hash_ids");
    if (ids == j.end() || !ids->is_array()) fail("hash_ids", "expected a list of block ids");
    for (const auto& id : *ids) {
      if (!id.is_number_unsigned()) fail("hash_ids", "ids must be whole numbers >= 0");
      row.hash_ids.push_back(id.get<std::uint64_t>());
    }
    if (static_cast<std::int64_t>(row.hash_ids.size()) > max_ids(row.prompt_tokens, kMooncakeBlockTokens)) {
      fail("hash_ids", std::to_string(row.hash_ids.size()) + " ids for " + std::to_string(row.prompt_tokens) +
                           " input tokens: at most one per 512-token block");
    }
    row.index = index_++;
    return true;
  }
  int line() const override { return line_; }
  const std::string& path() const override { return path_; }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw ConfigError(path_, line_, key, message);
  }
  double number(const nlohmann::json& j, const char* key) const {
    const auto it = j.find(key);
    if (it == j.end()) fail(key, "missing");
    if (!it->is_number()) fail(key, "expected a number");
    const double v = it->get<double>();
    if (!std::isfinite(v)) fail(key, "expected a finite number");
    return v;
  }
  std::int64_t whole(const nlohmann::json& j, const char* key, std::int64_t lowest) const {
    const double v = number(j, key);
    if (v != std::floor(v) || v < static_cast<double>(lowest) || v > 1e15) {
      fail(key, "expected a whole number >= " + std::to_string(lowest));
    }
    return static_cast<std::int64_t>(v);
  }

  std::string path_;
  std::ifstream in_;
  int line_ = 0;
  std::int64_t index_ = 0;
};

class CsvPrefixReader final : public PrefixTraceReader {
 public:
  CsvPrefixReader(const std::string& path, std::int64_t hash_block_tokens)
      : reader_(path),
        time_(reader_.column("arrival_s")),
        prompt_(reader_.column("input_tokens")),
        output_(reader_.column("output_tokens")),
        session_(optional_column("session_id")),
        hashes_(optional_column("prefix_hashes")),
        hash_block_tokens_(hash_block_tokens) {}

  bool next(PrefixTraceRow& row) override {
    if (!reader_.next_row()) return false;
    const double s = reader_.number(time_);
    if (s < 0) reader_.fail(time_, "arrival times must not be negative");
    if (s > kMaxTraceSeconds) reader_.fail(time_, "arrival time is too large");
    row.time_ns = std::llround(s * 1e9);
    row.prompt_tokens = reader_.whole_number(prompt_, 1);
    row.output_tokens = reader_.whole_number(output_, 0);
    row.session_id = 0;
    if (session_ >= 0 && !reader_.field(session_).empty()) {
      row.session_id = static_cast<std::uint64_t>(reader_.whole_number(session_, 1));
    }
    row.hash_ids.clear();
    if (hashes_ >= 0) read_ids(row);
    row.index = index_++;
    return true;
  }
  int line() const override { return reader_.line(); }
  const std::string& path() const override { return reader_.path(); }

 private:
  // The reader throws for an absent column; these two are optional.
  int optional_column(const char* name) const {
    try {
      return reader_.column(name);
    } catch (const ConfigError&) {
      return -1;
    }
  }
  void read_ids(PrefixTraceRow& row) const {
    const std::string_view text = reader_.field(hashes_);
    std::size_t i = 0;
    while (i < text.size()) {
      if (text[i] == ' ' || text[i] == ';' || text[i] == '\t') {
        ++i;
        continue;
      }
      std::uint64_t id = 0;
      const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), id);
      const std::size_t stop = static_cast<std::size_t>(end - text.data());
      if (ec != std::errc() || (stop < text.size() && text[stop] != ' ' && text[stop] != ';' && text[stop] != '\t')) {
        reader_.fail(hashes_, "expected whole numbers >= 0 separated by spaces or ';', got '" + std::string(text) + "'");
      }
      row.hash_ids.push_back(id);
      i = stop;
    }
    if (static_cast<std::int64_t>(row.hash_ids.size()) > max_ids(row.prompt_tokens, hash_block_tokens_)) {
      reader_.fail(hashes_, std::to_string(row.hash_ids.size()) + " ids for " + std::to_string(row.prompt_tokens) +
                                " input tokens: at most one per " + std::to_string(hash_block_tokens_) +
                                "-token block");
    }
  }

  CsvReader reader_;
  int time_, prompt_, output_, session_, hashes_;
  std::int64_t hash_block_tokens_;
  std::int64_t index_ = 0;
};

}  // namespace

std::int64_t trace_hash_block_tokens(const std::string& format, std::int64_t csv_hash_block_tokens) {
  return format == "mooncake" ? kMooncakeBlockTokens : csv_hash_block_tokens;
}

std::unique_ptr<PrefixTraceReader> open_prefix_trace(const std::string& path, const std::string& format,
                                                     std::int64_t hash_block_tokens) {
  if (format == "mooncake") return std::make_unique<MooncakeReader>(path);
  if (format == "csv") return std::make_unique<CsvPrefixReader>(path, hash_block_tokens);
  throw ConfigError(path, 0, "trace.format",
                    "format '" + format + "' carries no prefix information (use mooncake or csv)");
}

}  // namespace servesim
