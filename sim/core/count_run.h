#pragma once
// Run-length counts over a stretch of values: values[from] up to the next run's `from` (or
// the end) each came `count` times (0: none of them). A replica hands its lazy decodes'
// inter-token gaps on this way (one value per step, one run per change in how many decodes
// had it), and the quantile sketches take them so without expanding them.
#include <cstddef>
#include <cstdint>

namespace servesim {

struct CountRun {
  std::size_t from;
  std::int64_t count;
};

}  // namespace servesim
