#include "sim/study/study_runs.h"

#include <mutex>

#include "sim/cluster/parallel_runs.h"

namespace servesim {

std::vector<std::optional<ConfigError>> run_each(std::size_t count, int jobs,
                                                 const std::function<void(std::size_t)>& task,
                                                 const std::function<void(std::size_t, const ConfigError*)>& on_done) {
  std::vector<std::optional<ConfigError>> errors(count);
  std::mutex done_mutex;
  run_parallel(count, jobs, [&](std::size_t i) {
    try {
      task(i);
    } catch (const ConfigError& e) {
      errors[i] = e;
    }
    if (on_done) {
      std::lock_guard<std::mutex> lock(done_mutex);
      on_done(i, errors[i] ? &*errors[i] : nullptr);
    }
  });
  return errors;
}

}  // namespace servesim
