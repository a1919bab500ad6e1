#pragma once
// Small pools and classes for the cluster tests: llama-3-8b on an H100 with a constant or
// linear cost model, so step times are known exactly.
#include "sim/cluster/simulation.h"
#include "sim/scenario/model_loader.h"

namespace servesim::test {

inline PoolConfig constant_pool(const std::string& name, int replicas, Tick step_ns, int max_num_seqs = 256) {
  PoolConfig pool;
  pool.name = name;
  pool.replicas = replicas;
  pool.model = load_model("llama-3-8b");
  pool.hardware = load_hardware("h100-sxm");
  pool.engine.policy = "continuous";
  pool.engine.max_num_seqs = max_num_seqs;
  pool.engine.max_batched_tokens = 100'000;  // never splits a prompt
  pool.engine.kv_cache_tokens = 1'000'000;
  pool.cost_model.kind = "constant";
  pool.cost_model.constant_step_ns = step_ns;
  return pool;
}

// `count` requests `gap_ns` apart (constant arrivals), each `input` prompt and `output` out.
inline ClassSpec burst_class(const std::string& name, double rate_per_s, std::int64_t input, std::int64_t output) {
  ClassSpec c;
  c.name = name;
  c.arrival = ArrivalSpec{};
  c.arrival->process = ArrivalSpec::Process::constant;
  c.arrival->rate_per_s = rate_per_s;
  c.input = DistSpec{};
  c.input->a = static_cast<double>(input);  // kind fixed
  c.output = DistSpec{};
  c.output->a = static_cast<double>(output);
  return c;
}

inline const SummaryBlock& class_block(const RunResult& r, const std::string& name) {
  for (const auto& [n, block] : r.summary.classes)
    if (n == name) return block;
  FAIL("no class " << name);
  return r.summary.overall;
}

inline std::int64_t reason_count(const SummaryBlock& b, const std::string& reason) {
  const auto it = b.rejected_reasons.find(reason);
  return it == b.rejected_reasons.end() ? 0 : it->second;
}

}  // namespace servesim::test
