#include "sim/workload/vidur_trace_source.h"

#include "sim/core/time.h"

namespace servesim {
namespace {

class VidurRowParser : public TraceRowParser {
 public:
  explicit VidurRowParser(const CsvReader& reader)
      : time_(reader.column("arrived_at")),
        prompt_(reader.column("num_prefill_tokens")),
        output_(reader.column("num_decode_tokens")) {}

  TraceRow parse(const CsvReader& reader) const override {
    TraceRow row;
    const double arrived_at_s = reader.number(time_);
    if (arrived_at_s < 0) reader.fail(time_, "arrival times must not be negative");
    // 9e9 s (285 years) keeps the conversion to int64 nanoseconds exact in range.
    if (arrived_at_s > 9.0e9) reader.fail(time_, "arrival time is too large");
    row.time_ns = ticks_from_seconds(arrived_at_s);
    row.prompt_tokens = reader.whole_number(prompt_, 1);
    row.output_tokens = reader.whole_number(output_, 0);
    return row;
  }
  int time_column() const override { return time_; }

 private:
  int time_, prompt_, output_;
};

}  // namespace

std::unique_ptr<CsvTraceSource> make_vidur_trace_source(const std::string& path, double speedup, int class_index) {
  return std::make_unique<CsvTraceSource>(
      path, speedup, CsvTraceSource::TimeOrigin::zero,
      [](const CsvReader& reader) { return std::make_unique<VidurRowParser>(reader); }, class_index);
}

}  // namespace servesim
