#pragma once
// A KV-bound replica: 11,040 KV tokens reserved whole (kv_admission: reserve-full) against
// 1,100-token requests holds 10 at a time, each running 100 constant 10 ms steps after its
// prefill, so it serves about 10 requests a second; prefix cache off.
#include <sstream>
#include <string>

namespace servesim::testing {

inline std::string kv_bound(double rate_per_s, long requests, const std::string& input = "{fixed: 1000}") {
  std::ostringstream s;
  s << "name: kv-bound\nseed: 5\nstop: {requests: " << requests << "}\n"
       "workload:\n  - class: default\n    arrival: {process: poisson, rate: " << rate_per_s << "}\n"
       "    input: " << input << "\n    output: {fixed: 100}\n"
       "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n      hardware: h100-sxm\n"
       "      engine: {policy: chunked-prefill, max_num_seqs: 1024, max_batched_tokens: 8192,\n"
       "               kv_cache_tokens: 11040, block_size: 16, kv_admission: reserve-full, prefix_cache: false}\n"
       "      cost_model: {constant: {step: 10ms}}\n"
       "outputs: {requests_csv: false}\n";
  return s.str();
}

}  // namespace servesim::testing
