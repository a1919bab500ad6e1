#pragma once
// What a run or sweep simulated, as the HTML report's header shows it (docs/report.md): the
// scenario's name and seed, each workload class with its arrival and SLO targets, each pool's
// model, GPU, parallelism, formats, engine, cost model and KV capacity, and the servesim
// version. A run writes it as run_context.json beside summary.json when it writes
// report.html; a sweep writes it in sweep.json as "context". It holds no date and no folder
// of the machine that ran, so equal runs write it byte for byte.
#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.h"

namespace servesim {

// {"scenario", "file", "seed", "stop", "router", "servesim_version",
//  "classes": [{"name", "workload", "slo": [{"objective", "field", "target_ms"}]}],
//  "pools": [{"name", "replicas", "min_replicas" (autoscaled only), "model", "hardware", "tp", "pp",
//             "ep", "weights", "kv", "engine_policy", "engine_preset", "engine_version",
//             "cost_model", "price_per_gpu_hour", "block_size", "kv_capacity_tokens",
//             "kv_blocks"}]}
// A pool whose KV capacity cannot be sized (the model does not fit) has null for both.
nlohmann::ordered_json scenario_context(const Scenario& scenario);

}  // namespace servesim
