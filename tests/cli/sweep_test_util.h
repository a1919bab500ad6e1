#pragma once
// A scenario that is an M/D/1 queue: one replica running one sequence at a time, a
// constant 10 ms step, one output token, so TTFT = wait + one 10 ms prefill step
// (tests/cluster/queueing_test.cpp). Service S = 10 ms, so rate lambda gives rho = lambda/100.
#include <string>

namespace servesim::testing {

inline std::string md1_scenario(double rate_per_s, long requests) {
  return "name: md1\n"
         "seed: 11\n"
         "stop: {requests: " + std::to_string(requests) + "}\n"
         "workload:\n"
         "  - class: default\n"
         "    arrival: {process: poisson, rate: " + std::to_string(rate_per_s) + "}\n"
         "    input: {fixed: 100}\n"
         "    output: {fixed: 1}\n"
         "cluster:\n"
         "  pools:\n"
         "    - name: main\n"
         "      replicas: 1\n"
         "      model: llama-3-8b\n"
         "      hardware: h100-sxm\n"
         "      engine: {policy: continuous, max_num_seqs: 1, max_batched_tokens: 100000, kv_cache_tokens: 10000000}\n"
         "      cost_model: {constant: {step: 10ms}}\n"
         "outputs: {requests_csv: false}\n";
}

// Pollaczek-Khinchine for deterministic service: W = S + rho S / (2 (1 - rho)).
inline double md1_mean_sojourn_ms(double service_ms, double rho) {
  return service_ms + rho * service_ms / (2.0 * (1.0 - rho));
}

}  // namespace servesim::testing
