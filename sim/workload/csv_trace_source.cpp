#include "sim/workload/csv_trace_source.h"

#include <cmath>

#include "sim/core/assert.h"
#include "sim/core/errors.h"

namespace servesim {

CsvTraceSource::CsvTraceSource(const std::string& path, double speedup, TimeOrigin origin,
                               const TraceRowParserFactory& factory, int class_index)
    : reader_(path), parser_(factory(reader_)), speedup_(speedup), class_index_(class_index) {
  if (!(speedup_ > 0) || !std::isfinite(speedup_)) {
    throw ConfigError(path, 0, "trace.speedup", "must be a positive number");
  }
  // Checking pass: every cell, and arrival order, before the run starts.
  CsvReader check(path);
  const std::unique_ptr<TraceRowParser> check_parser = factory(check);
  std::optional<std::int64_t> previous_ns;
  while (check.next_row()) {
    const TraceRow row = check_parser->parse(check);
    if (origin == TimeOrigin::zero && row.time_ns < 0) {
      check.fail(check_parser->time_column(), "arrival times must not be negative");
    }
    if (previous_ns && row.time_ns < *previous_ns) {
      check.fail(check_parser->time_column(),
                 "rows must be in arrival order; this row is earlier than the one before it");
    }
    if (!previous_ns && origin == TimeOrigin::first_row) origin_ns_ = row.time_ns;
    previous_ns = row.time_ns;
    ++row_count_;
  }
  // The latest arrival must fit in a Tick once divided by the speedup.
  if (previous_ns && static_cast<double>(*previous_ns - origin_ns_) / speedup_ > 9.0e18) {
    throw ConfigError(path, check.line(), "trace.speedup", "arrival times overflow 64-bit nanoseconds at this speedup");
  }
  advance();
}

void CsvTraceSource::advance() {
  if (!reader_.next_row()) {
    next_.reset();
    return;
  }
  const TraceRow row = parser_->parse(reader_);
  if (row.time_ns < origin_ns_) reader_.fail(parser_->time_column(), "the file changed while it was being replayed");
  RequestSpec request;
  request.class_index = class_index_;
  // Exact integer arithmetic at speedup 1; otherwise the quotient is rounded once per row.
  const std::int64_t since_origin_ns = row.time_ns - origin_ns_;
  request.arrival_ns = speedup_ == 1.0
                           ? since_origin_ns
                           : static_cast<Tick>(std::llround(static_cast<double>(since_origin_ns) / speedup_));
  request.prompt_tokens = row.prompt_tokens;
  request.output_tokens = row.output_tokens;
  request.lora_adapter = static_cast<std::int16_t>(row.lora_adapter);
  next_ = request;
}

}  // namespace servesim
