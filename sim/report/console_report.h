#pragma once
// The human-readable end-of-run table printed by `servesim run`. Machine readers use
// summary.json; this table is for eyes and may change layout between versions.
#include <iosfwd>

#include "sim/metrics/summary.h"

namespace servesim {

// One row per class, then "overall", then one per pool: completed, rejected, request and
// output-token throughput, TTFT p50/p99, ITL p50/p99, TPOT p50, E2E p50/p99 (ms) and the
// prefix-cache hit rate (%), then the statistic of every stated SLO objective the columns
// lack (TPOT p99 for an SLO on it). Below the table: where the time went, goodput, cost,
// and the SLO verdict ("SLO: met (...)" or "SLO: missed: ttft p99 1.43 s > 1 s").
void print_console_report(const RunSummary& summary, std::ostream& out);

}  // namespace servesim
