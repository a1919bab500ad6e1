#include "sim/workload/vidur_trace_source.h"

#include "sim/core/time.h"

namespace servesim {
namespace {

// An arrived_at cell (seconds since the trace's start) in ns.
std::int64_t vidur_time_ns(const CsvReader& reader, int column) {
  const double arrived_at_s = reader.number(column);
  if (arrived_at_s < 0) reader.fail(column, "arrival times must not be negative");
  // 9e9 s (285 years) keeps the conversion to int64 nanoseconds exact in range.
  if (arrived_at_s > 9.0e9) reader.fail(column, "arrival time is too large");
  return ticks_from_seconds(arrived_at_s);
}

}  // namespace

std::unique_ptr<CsvTraceSource> make_vidur_trace_source(const std::string& path, double speedup, int class_index) {
  return std::make_unique<CsvTraceSource>(
      path, speedup, CsvTraceSource::TimeOrigin::zero,
      [](const CsvReader& reader) {
        return std::make_unique<TimePromptOutputParser>(reader, "arrived_at", "num_prefill_tokens",
                                                        "num_decode_tokens", vidur_time_ns);
      },
      class_index);
}

}  // namespace servesim
