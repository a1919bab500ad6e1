#pragma once
// Names GuideLLM's benchmark files use, shared by the per-request reader
// (guidellm_format.cpp) and the aggregates reader (guidellm_summary.cpp).
#include <cstdio>
#include <string>

namespace servesim {

// The request lists of a GuideLLM benchmark, by status (guidellm/benchmark/objects.py,
// StatusBreakdown: successful, errored, incomplete).
inline constexpr const char* kGuidellmStatuses[] = {"successful", "errored", "incomplete"};

// A stage's rate as GuideLLM names its strategies ("constant@5.00").
inline std::string guidellm_rate_text(double rate_per_s) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", rate_per_s);
  return buffer;
}

}  // namespace servesim
