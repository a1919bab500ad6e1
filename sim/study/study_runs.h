#pragma once
// The plumbing every study that runs many scenarios shares (sweep, explain, search): run
// them on local cores, keep each one's answer or the error that stopped it, and report each
// as it ends. A scenario that cannot be built (weights larger than memory at this tp, say)
// is a fact about that point, recorded in its slot, not a reason to stop the others.
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "sim/core/errors.h"

namespace servesim {

// Calls task(i) for i in [0, count) on up to `jobs` threads (run_parallel: each task writes
// only its own slot, so results do not depend on the thread count). A ConfigError thrown by
// a task is kept as that task's error; any other exception stops the study (run_parallel).
// After each task, `on_done(i, error)` runs under a lock, one call at a time (a progress
// line); `error` is null when the task succeeded.
std::vector<std::optional<ConfigError>> run_each(
    std::size_t count, int jobs, const std::function<void(std::size_t)>& task,
    const std::function<void(std::size_t, const ConfigError* error)>& on_done = {});

}  // namespace servesim
