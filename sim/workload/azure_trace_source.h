#pragma once
// Azure LLM inference traces (Azure Public Dataset, 2023; Splitwise, ISCA'24): CSV with
// TIMESTAMP (e.g. "2023-11-16 18:15:46.6805900"), ContextTokens (prompt) and GeneratedTokens
// (output). A request arrives (TIMESTAMP - TIMESTAMP of the first row) / speedup after t = 0.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sim/workload/csv_trace_source.h"

namespace servesim {

// Parses "YYYY-MM-DD HH:MM:SS" with an optional fraction of 1 to 9 digits (the Azure files
// use 7, i.e. 100 ns) into nanoseconds since 1970-01-01 00:00:00 (no time zone: only
// differences matter). A 'T' is accepted in place of the space. nullopt if malformed, or if
// the year lies outside kAzureFirstYear..kAzureLastYear: then every timestamp, and every
// difference of two, fits in 64-bit nanoseconds (2262-04-11 is the last day that does).
inline constexpr int kAzureFirstYear = 1970;
inline constexpr int kAzureLastYear = 2261;
std::optional<std::int64_t> parse_azure_timestamp_ns(std::string_view text);

// Throws ConfigError naming file:line and the column for a missing column, a malformed
// timestamp, a row out of time order (key TIMESTAMP), ContextTokens < 1 or non-numeric,
// GeneratedTokens < 0 or non-numeric.
std::unique_ptr<CsvTraceSource> make_azure_trace_source(const std::string& path, double speedup, int class_index);

}  // namespace servesim
