#pragma once
// A trace with its own timestamps, streamed from a CSV file row by row (azure, vidur). The
// format-specific part, turning one row into (time, prompt, output), is a TraceRowParser;
// this class does what every timed format shares: checking, ordering, speedup, lookahead.
//
// Construction makes one checking pass over the whole file (streaming, nothing kept), so a
// bad row fails the run before it starts rather than in the middle of the event loop; the
// requests are then read by a second pass, one row ahead of the simulation.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sim/workload/csv_reader.h"
#include "sim/workload/lora_demand.h"
#include "sim/workload/lookahead_source.h"

namespace servesim {

struct TraceRow {
  std::int64_t time_ns = 0;  // in the file's own time base (e.g. ns since 1970)
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  int lora_adapter = 0;  // the LoRA adapter the row names (its lora_adapter column); 0: the base model
};

class TraceRowParser {
 public:
  virtual ~TraceRowParser() = default;
  // Reads the reader's current row. Throws ConfigError (via CsvReader::fail) for a bad cell.
  virtual TraceRow parse(const CsvReader& reader) const = 0;
  // Index of the time column, named in errors about out-of-order rows.
  virtual int time_column() const = 0;
  // Whether rows name LoRA adapters (the file has a lora_adapter column).
  virtual bool names_adapters() const { return false; }
};

// The formats of three columns, an arrival time and the prompt and output lengths, which
// differ in the columns' names and in how the time is written (`time_ns`: the time cell
// `column` of the reader's row in the file's time base, in ns). Cells are read time first,
// then prompt (>= 1), then output (>= 0), then the optional `lora_adapter` column (a whole
// number from 0, the base model, to kMaxLoraAdapterId: vLLM's lora_int_id), so a row's
// first bad cell is named.
class TimePromptOutputParser final : public TraceRowParser {
 public:
  using TimeCell = std::int64_t (*)(const CsvReader& reader, int column);
  TimePromptOutputParser(const CsvReader& reader, const char* time, const char* prompt, const char* output,
                         TimeCell time_ns)
      : time_(reader.column(time)), prompt_(reader.column(prompt)), output_(reader.column(output)),
        adapter_(reader.find_column("lora_adapter")), time_ns_(time_ns) {}

  TraceRow parse(const CsvReader& reader) const override {
    TraceRow row;
    row.time_ns = time_ns_(reader, time_);
    row.prompt_tokens = reader.whole_number(prompt_, 1);
    row.output_tokens = reader.whole_number(output_, 0);
    if (adapter_ >= 0) {
      const std::int64_t adapter = reader.whole_number(adapter_, 0);
      if (adapter > kMaxLoraAdapterId) reader.fail(adapter_, "must be at most " + std::to_string(kMaxLoraAdapterId));
      row.lora_adapter = static_cast<int>(adapter);
    }
    return row;
  }
  int time_column() const override { return time_; }
  bool names_adapters() const override { return adapter_ >= 0; }

 private:
  int time_, prompt_, output_;
  int adapter_;  // -1: no lora_adapter column
  TimeCell time_ns_;
};

// Finds the format's columns in a freshly opened reader (throws ConfigError if one is absent).
using TraceRowParserFactory = std::function<std::unique_ptr<TraceRowParser>(const CsvReader&)>;

class CsvTraceSource : public LookaheadSource {
 public:
  enum class TimeOrigin {
    first_row,  // arrival = time since the first row (wall-clock timestamps)
    zero,       // arrival = the time as written (already relative to the trace start)
  };

  // arrival_ns = (time - origin) / speedup, rounded to the nearest ns. Throws ConfigError for
  // speedup <= 0, a row earlier than the one before it (key: the time column), a negative
  // time with origin zero, or any bad cell.
  CsvTraceSource(const std::string& path, double speedup, TimeOrigin origin, const TraceRowParserFactory& factory,
                 int class_index);

  // Data rows in the file (from the checking pass).
  std::int64_t row_count() const { return row_count_; }
  bool names_adapters() const override { return parser_->names_adapters(); }

 private:
  void advance() override;

  CsvReader reader_;
  std::unique_ptr<TraceRowParser> parser_;
  double speedup_;
  std::int64_t origin_ns_ = 0;
  int class_index_;
  std::int64_t row_count_ = 0;
};

}  // namespace servesim
