#pragma once
// Independent runs on local cores. A Simulation owns everything it uses (no global mutable
// state), so runs need no locks; each task writes only its own result slot, and callers
// read the slots in index order, so results do not depend on the number of threads.
#include <cstddef>
#include <functional>

namespace servesim {

// Calls task(0) ... task(count - 1), on up to `jobs` threads (jobs <= 1: in this thread, in
// order). Threads take the next index from a shared counter. If a task throws, no further
// tasks start, the running ones finish, and the exception of the lowest failing index is
// rethrown. REQUIRES: tasks touch no state shared with other tasks.
void run_parallel(std::size_t count, int jobs, const std::function<void(std::size_t)>& task);

// The default for --jobs: the number of hardware threads, at least 1.
int default_jobs();

}  // namespace servesim
