#pragma once
// inference-perf's two length samplers (inference_perf/utils/numeric/distribution/utils.py),
// drawn from servesim's seeded Rng: the same distributions, never numpy's exact stream.
//   - shared_prefix_length: sample_from_distribution, which SharedPrefixDataGenerator uses
//     for system prompt, question and output lengths;
//   - io_length: generate_distribution, which the random and synthetic generators use.
// Both clip to [min, max] and round half to even (np.round), then clip again.
#include <cstdint>

#include "sim/core/rng.h"
#include "sim/workload/benchmark/inference_perf_config.h"

namespace servesim {

// normal N(mean, std_dev); skew_normal by Azzalini's two-normal method (_sample_skew_normal);
// lognormal moment-matched to mean and std_dev (std_dev 0: the mean); uniform on
// [min, max + 1); poisson with lambda = mean (1 if mean <= 0); fixed: int(mean), unclipped.
std::int64_t shared_prefix_length(const InferencePerfLength& l, Rng& rng);

// normal N(mean, std_dev); lognormal moment-matched to mean - min (1 if that is <= 0), then
// shifted by min; uniform on [min, max); fixed: int(mean), unclipped. REQUIRES: not
// skew_normal or poisson (read_inference_perf_config refuses them here).
std::int64_t io_length(const InferencePerfLength& l, Rng& rng);

// A Poisson(lambda) count (numpy's rng.poisson), by multiplying uniforms in slices of
// lambda at most 30 (a sum of independent Poissons is Poisson): O(lambda) work.
std::int64_t poisson_count(double lambda, Rng& rng);

}  // namespace servesim
