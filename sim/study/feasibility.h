#pragma once
// What `capacity` and `search` share in deciding what a configuration must meet, and what
// every study that repeats or lengthens runs shares: the class a study judges, the SLO
// scopes it judges against, how far a run too short to judge may be lengthened, and the
// seeds of replicates. One definition each, so that the studies cannot drift apart.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/study/slo_targets.h"

namespace servesim {

struct Scenario;

// How many times longer than asked capacity and search run a trial that is too short to
// judge before they call it infeasible for its length (judge_long_enough's max_scale): a
// run of the default 1000 requests may grow to 16,000, which keeps a trial's cost bounded
// while covering the loads where the sustained-rate noise needs it (docs/sweeps.md).
inline constexpr double kMaxLengthening = 16;

// The class a study judges: the one named `class_name` (ConfigError with "did you mean",
// key "--class", when there is none), else the only class, else -1 (several classes, none
// named).
int judged_class_index(const Scenario& base, const std::string& class_name, const std::string& path);

// The objectives a trial must meet: `slo_text` ("ttft_p99=2s,...") for `class_name` ("" the
// overall block) when given, else each class's own `slo:` (only `class_name`'s when one is
// named). Throws ConfigError(path, 0, "--slo", ...) when that leaves no target at all.
std::vector<SloScope> slo_scopes(const Scenario& base, const std::string& class_name, const std::string& slo_text,
                                 const std::string& path);

// The seed of replicate `k` (0 the first run) of a run whose own seed is `first`: the seeds
// after it, so that K replicates of seed S are the runs of seeds S .. S+K-1.
inline std::uint64_t replicate_seed(std::uint64_t first, int k) { return first + static_cast<std::uint64_t>(k); }

}  // namespace servesim
