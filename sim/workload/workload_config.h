#pragma once
// One workload class of a scenario (the `workload:` list), already validated by io.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/workload/distribution.h"

namespace servesim {

struct ArrivalSpec {
  enum class Process { poisson, gamma, constant, closed };
  Process process = Process::poisson;
  double rate_per_s = 0;       // poisson, gamma, constant
  double cv = 1.0;             // gamma: coefficient of variation of inter-arrival times
  int concurrency = 0;         // closed: users, each sends the next request after the last
  std::optional<DistSpec> think_time_s;  // closed: pause after a completion (seconds)
};

struct TraceSpec {
  std::string format;          // azure | mooncake | vidur | csv | lengths
  std::string path;            // resolved by the loader
  double speedup = 1.0;        // arrival times divided by this
};

struct SloSpec {
  std::optional<Tick> ttft_ns;
  std::optional<Tick> itl_ns;
  std::optional<Tick> tpot_ns;
  std::optional<Tick> e2el_ns;
};

struct ClassSpec {
  std::string name = "default";
  std::optional<ArrivalSpec> arrival;  // absent for a trace with its own timestamps
  std::optional<DistSpec> input;       // prompt tokens
  std::optional<DistSpec> output;      // output tokens
  std::optional<TraceSpec> trace;
  SloSpec slo;
  int priority = 0;                    // higher is served first where the policy allows
};

}  // namespace servesim
