#pragma once
// Helpers shared by the workload tests (and the cluster tests that build workloads): a
// distribution spec by its parameters, sample moments, tolerances from closed-form fourth
// moments, and temporary CSV files.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/workload/distribution.h"

namespace servesim::testing {

// A distribution by its kind and parameters (DistSpec's a and b), the rest left empty.
inline DistSpec dist(DistSpec::Kind kind, double a, double b = 0) {
  DistSpec d;
  d.kind = kind;
  d.a = a;
  d.b = b;
  return d;
}

struct Moments {
  double mean = 0;
  double variance = 0;  // unbiased
};

inline Moments moments_of(const std::vector<double>& xs) {
  long double sum = 0;
  for (double x : xs) sum += x;
  const long double mean = sum / xs.size();
  long double squares = 0;
  for (double x : xs) squares += (x - mean) * (x - mean);
  return {static_cast<double>(mean), static_cast<double>(squares / (xs.size() - 1))};
}

// Five standard errors of the sample mean and of the sample variance, for n samples of a
// distribution with variance `var` and fourth central moment `mu4`.
inline double mean_tolerance(double var, std::size_t n) { return 5.0 * std::sqrt(var / n); }
inline double variance_tolerance(double var, double mu4, std::size_t n) {
  return 5.0 * std::sqrt((mu4 - var * var) / n);
}

// A file in the temporary directory, removed when the object goes out of scope.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& contents)
      : path_((std::filesystem::temp_directory_path() /
               ("servesim_workload_" + std::to_string(::getpid()) + "_" + name))
                  .string()) {
    std::ofstream out(path_, std::ios::binary);
    out << contents;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string repo_file(const std::string& relative) { return std::string(SERVESIM_SOURCE_DIR) + "/" + relative; }

}  // namespace servesim::testing
