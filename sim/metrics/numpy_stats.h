#pragma once
// The summary statistics benchmark tools compute with numpy, computed the same way so that
// a file servesim writes agrees with what the tool would print for the same requests:
// np.mean, np.std (population: divides by n) and np.percentile with its default "linear"
// method (the value at rank p/100 x (n - 1) of the sorted values, interpolated between the
// two neighbours). Each returns 0 for an empty list, as vllm's `np.mean(xs or 0)` does.
#include <vector>

namespace servesim {

double numpy_mean(const std::vector<double>& values);
double numpy_std(const std::vector<double>& values);
// REQUIRES: 0 <= percent <= 100. `sorted` in ascending order.
double numpy_percentile(const std::vector<double>& sorted, double percent);

}  // namespace servesim
