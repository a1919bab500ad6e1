#pragma once
// What the libFuzzer targets of the two time-curve CSVs a scenario names do with one input
// (see fuzz_bodies.h for why they are plain functions): `arrival.rate_curve` (columns time_s,
// rate) and `trace.rate_scale` (columns time_s, scale), both read by
// sim/scenario/workload_parse.cpp. The input is the CSV; fixed scenarios next to it name it,
// and are loaded as `servesim run` loads them. A class that loads is built into its source
// and its first requests are drawn.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/fuzz/fuzz_util.h"

namespace servesim::fuzz {

// The scenario with one class whose `arrival:` or `trace:` is `class_source`.
inline std::string curve_scenario(const std::string& class_source) {
  return "name: curve\nseed: 9\nstop: {time: 1h}\nworkload:\n  - class: c\n    " + class_source +
         "\ncluster:\n  pools:\n    - {name: main, model: llama-3-8b, hardware: h100-sxm}\n";
}

// Loads `scenario_path` and draws up to `requests` requests of each class, which must
// arrive in order; `to_the_end`: the source must also end within that many.
inline void load_and_draw(const std::string& scenario_path, std::int64_t requests, bool to_the_end) {
  try {
    const Scenario s = load_scenario(scenario_path);
    for (std::size_t c = 0; c < s.workload.size(); ++c) {
      auto source = make_source(s.workload[c], static_cast<int>(c), s.seed);
      if (to_the_end) {
        drain(*source, requests);
        continue;
      }
      Tick previous_ns = 0;
      for (std::int64_t n = 0; n < requests; ++n) {
        const auto next = source->peek_arrival_ns();
        if (!next) break;
        if (*next < previous_ns) finding("a source went back in time");
        if (source->pop().arrival_ns != *next) finding("pop() returned another arrival than peek_arrival_ns()");
        previous_ns = *next;
      }
    }
  } catch (const ConfigError&) {
    // rejected with file:line: the outcome the contract allows
  }
}

// A rate curve: run as given (the last row's time ends it) and with a period, a scale and
// repeats, under the three open-loop processes.
inline void rate_curve_input(const std::uint8_t* data, std::size_t size) {
  static const TempFolder folder;
  static const std::string plain = folder.write(
      "plain.yaml", curve_scenario("arrival: {process: poisson, rate_curve: {path: curve.csv}}\n"
                                   "    input: {fixed: 100}\n    output: {fixed: 10}"));
  static const std::string repeated = folder.write(
      "repeated.yaml",
      curve_scenario("arrival: {process: gamma, cv: 3, rate_curve: {path: curve.csv, period: 400d, scale: 0.25, "
                     "repeat: 3}}\n    input: {fixed: 100}\n    output: {fixed: 10}"));
  static const std::string constant = folder.write(
      "constant.yaml", curve_scenario("arrival: {process: constant, rate_curve: {path: curve.csv, scale: 1000}}\n"
                                      "    input: {fixed: 100}\n    output: {fixed: 10}"));
  folder.write("curve.csv", data, size);
  for (const std::string& scenario : {plain, repeated, constant}) load_and_draw(scenario, 2000, false);
}

// The trace the rate_scale scenarios warp: 40 requests over 10 hours of its own time
// (azure format), so that scale rows anywhere in that span move some of them.
inline std::string rate_scale_trace() {
  std::string csv = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  for (int i = 0; i < 40; ++i) {
    const int seconds = i * 900 + (i % 7) * 13;  // every 15 min, a little jitter
    char row[96];
    std::snprintf(row, sizeof row, "2023-11-16 %02d:%02d:%02d.%07d,%d,%d\n", 8 + seconds / 3600, seconds / 60 % 60,
                  seconds % 60, i * 12345 % 10000000, 100 + i, 10 + i % 5);
    csv += row;
  }
  return csv;
}

// A rate scale over a fixed trace, replayed as recorded and 7.5 times faster; every
// request must still come, in order.
inline void rate_scale_input(const std::uint8_t* data, std::size_t size) {
  static const TempFolder folder;
  static const std::string trace = folder.write("trace.csv", rate_scale_trace());
  static const std::string plain = folder.write(
      "plain.yaml", curve_scenario("trace: {format: azure, path: trace.csv, rate_scale: {path: scale.csv}}"));
  static const std::string faster = folder.write(
      "faster.yaml",
      curve_scenario("trace: {format: azure, path: trace.csv, speedup: 7.5, rate_scale: {path: scale.csv}}"));
  (void)trace;
  folder.write("scale.csv", data, size);
  for (const std::string& scenario : {plain, faster}) load_and_draw(scenario, 40, true);
}

}  // namespace servesim::fuzz
