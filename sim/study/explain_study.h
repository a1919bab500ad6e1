#pragma once
// The explain study (`servesim explain`, docs/explain.md): the scenario and one-lever
// variants of it (explain_levers.h) run side by side; for TTFT p50/p99, TPOT p50/p99, ITL
// p50/p99 and throughput, how far each lever moves the figure, the levers ranked, and which
// phase owns each figure. A variant that saturated, or that is too short to tell whether it
// did (the one saturation rule, sim/cluster/saturation_verdict.h), is never ranked: it is
// listed apart with the reason. Runs too short to judge are first lengthened, all of them
// alike, up to kExplainMaxLengthen times. A variant that emits several tokens per step is
// ranked last on the per-gap figures (explain_comparable.h).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/metrics/summary.h"
#include "sim/study/explain_levers.h"

namespace servesim {

struct ExplainMetric {
  const char* field;  // summary.json field
  const char* label;
  const char* unit;
  bool higher_is_better;
  // A per-gap figure (ITL, timed per streamed chunk): a variant that emits several tokens
  // per step sends them in one chunk, so its gap is a verify step, not a token's time, and
  // its change is not comparable with the other levers'.
  bool per_gap = false;
  // Printed as a block of its own; the others are in the JSON and beside a printed one.
  bool printed = true;
  const char* beside = nullptr;  // the field printed next to each variant's change
};

// The figures explain ranks, in report order.
const std::vector<ExplainMetric>& explain_metrics();
std::size_t explain_metric_index(const std::string& field);  // explain_metrics().size() if none

// A lever improves a metric when it changes it by more than this; smaller moves are noise
// of a finite run, not an effect worth acting on.
inline constexpr double kExplainMovesThreshold = 0.01;

// How far explain lengthens its runs (stop.requests, stop.time) so that each can be judged.
inline constexpr double kExplainMaxLengthen = 8;

// One variant that ran, against the run it is compared with.
struct ExplainVariant {
  std::size_t lever;                // index into ExplainStudy::levers
  std::vector<double> values;       // per explain_metrics()
  std::vector<double> changes;      // (variant - compared) / compared, NaN when undefined
  std::string overload;             // overload_of(): "" when the variant kept up
  std::string too_short;            // too_short_of(): "" when it could be judged
  bool several_tokens = false;      // it, or the run it is compared with, emits several per step
  std::string compared_with = "base";  // or the base priced by the roofline, and why
  // Why its change in `m` cannot be ranked with the others', or "".
  std::string not_comparable(const ExplainMetric& m) const;
  // Ranked at all: it kept up, as far as its run can tell.
  bool ranked() const { return overload.empty() && too_short.empty(); }
};

// One metric: the variants ranked (comparable first, largest move first) and its owner.
struct ExplainRanking {
  std::vector<std::size_t> order;                    // indices into ExplainStudy::variants
  std::vector<std::size_t> not_ranked;               // saturated or too short, in lever order
  std::string owner = "none";                        // prefill | decode | capacity | none
  std::map<std::string, double> by_phase;            // phase -> its levers' largest improvement
  std::map<std::string, std::string> top_of_phase;   // phase -> the lever that made it
};

struct ExplainRequest {
  std::string scenario_path;
  std::vector<std::string> sets;       // --set overrides of the base (and every variant)
  std::optional<std::uint64_t> seed;   // every run's seed; the scenario's without it
  int jobs = 1;                        // runs at once
};

struct ExplainStudy {
  std::string scenario;
  std::uint64_t seed = 0;
  bool base_several_tokens = false;
  SummaryBlock base;
  std::string base_overload;             // overload_of(base, nullptr)
  std::string base_too_short;            // too_short_of(base)
  std::string lengthened;                // "" or how far every run was lengthened, and why
  std::vector<Lever> levers;             // every lever; skipped ones carry skip_reason
  std::vector<ExplainVariant> variants;  // the ones that ran, in lever order
  std::vector<ExplainRanking> rankings;  // per explain_metrics()
};

// Throws ConfigError when the base scenario does not load or cannot run; a variant that
// does not is a skipped lever with the reason.
ExplainStudy run_explain(const ExplainRequest& request);

}  // namespace servesim
