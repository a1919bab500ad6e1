#pragma once
// Vidur's request traces (microsoft/vidur, data/processed_traces/*.csv with timestamps):
// arrived_at (seconds from the start of the trace), num_prefill_tokens (prompt) and
// num_decode_tokens (output); other columns are ignored. arrival = arrived_at / speedup,
// taken as written (not shifted to the first row), so a file may start after t = 0.
#include <memory>
#include <string>

#include "sim/workload/csv_trace_source.h"

namespace servesim {

// Throws ConfigError naming file:line and the column for a missing column, a non-numeric or
// negative arrived_at, a row out of time order (key arrived_at), num_prefill_tokens < 1 or
// num_decode_tokens < 0.
std::unique_ptr<CsvTraceSource> make_vidur_trace_source(const std::string& path, double speedup, int class_index);

}  // namespace servesim
