#include "sim/study/scenario_context.h"

#include <filesystem>
#include <optional>
#include <string>

#include "sim/cluster/engine_setup.h"
#include "sim/core/errors.h"
#include "sim/engine/memory_plan.h"
#include "sim/metrics/slo_verdict.h"
#include "sim/model/dtype.h"
#include "sim/scenario/scenario_summary.h"
#include "sim/study/scenario_context_text.h"

namespace servesim {

namespace {

using ojson = nlohmann::ordered_json;

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

ojson text_or_null(const std::string& text) { return text.empty() ? ojson(nullptr) : ojson(text); }

std::string describe_stop(const StopSpec& stop) {
  if (!stop.requests && !stop.time_ns) return "when every source is exhausted";
  std::string out;
  if (stop.requests) out = "after " + std::to_string(*stop.requests) + " requests";
  if (stop.requests && stop.time_ns) out += " or ";
  if (stop.time_ns) out += "at " + format_duration(*stop.time_ns) + " simulated";
  return out;
}

// The class's objectives in the order the verdict judges them (ttft, itl, tpot, e2el).
ojson slo_targets(const SloSpec& slo) {
  ojson out = ojson::array();
  auto add = [&out](const char* metric, const std::optional<Tick>& bound, const std::string& stat) {
    if (!bound) return;
    out.push_back({{"objective", std::string(metric) + "_" + stat},
                   {"field", slo_statistic_field(metric, stat)},
                   {"target_ms", static_cast<double>(*bound) / static_cast<double>(kNsPerMs)}});
  };
  add("ttft", slo.ttft_ns, slo.ttft_stat);
  add("itl", slo.itl_ns, slo.itl_stat);
  add("tpot", slo.tpot_ns, slo.tpot_stat);
  add("e2el", slo.e2el_ns, slo.e2el_stat);
  return out;
}

ojson class_context(const ClassSpec& spec) {
  // A trace by its file name: the folder is the machine's, not the scenario's.
  ClassSpec shown = spec;
  if (shown.trace && !shown.trace->vllm_bench_serve) shown.trace->path = file_name(shown.trace->path);
  std::string workload = describe_workload_class(shown);
  workload.erase(0, spec.name.size() + 2);  // "NAME: "
  // The targets have their own key; the text ends with them when there are any.
  if (const std::size_t slo = workload.rfind("; slo "); !slo_targets(spec.slo).empty() && slo != std::string::npos)
    workload.erase(slo);
  return {{"name", spec.name}, {"workload", workload}, {"slo", slo_targets(spec.slo)}};
}

// KV capacity per replica as the pool sizes it when it is built (sim/cluster/pool.cpp).
void add_kv_capacity(const PoolConfig& pool, const std::string& key, ojson& out) {
  out["block_size"] = pool.engine.block_size;
  try {
    const MemoryPlan plan = plan_memory(pool.model, pool.hardware, pool.deployment, pool.engine);
    const std::int64_t blocks = kv_blocks_for_pool(pool, plan, key);
    out["kv_capacity_tokens"] = blocks * pool.engine.block_size;
    out["kv_blocks"] = blocks;
  } catch (const ConfigError&) {  // a sweep's base may not fit where its points do
    out["kv_capacity_tokens"] = nullptr;
    out["kv_blocks"] = nullptr;
  }
}

ojson pool_context(const PoolConfig& p, const std::string& key) {
  ojson out = ojson::object();
  out["name"] = p.name;
  out["replicas"] = p.replicas;
  if (p.autoscale) out["min_replicas"] = p.autoscale->min_replicas;
  out["model"] = p.model.name;
  out["hardware"] = p.hardware.name;
  out["tp"] = p.deployment.tp;
  out["pp"] = p.deployment.pp;
  out["ep"] = p.deployment.ep;
  out["weights"] = std::string(dtype_name(p.deployment.weights));
  out["kv"] = std::string(dtype_name(p.deployment.kv));
  out["engine_policy"] = p.engine.policy;
  out["engine_preset"] = text_or_null(file_name(p.engine.preset));
  out["engine_version"] = text_or_null(p.engine.version);
  CostModelSpec cost = p.cost_model;
  cost.table_path = file_name(cost.table_path);
  out["cost_model"] = describe_cost_model(cost);
  out["price_per_gpu_hour"] = p.hardware.price_per_gpu_hour;
  add_kv_capacity(p, key, out);
  return out;
}

}  // namespace

ojson scenario_context(const Scenario& scenario) {
  ojson out = ojson::object();
  out["scenario"] = scenario.name;
  out["file"] = file_name(scenario.source_file);
  out["seed"] = scenario.seed;
  out["stop"] = describe_stop(scenario.stop);
  out["router"] = scenario.cluster.router;
  out["servesim_version"] = SERVESIM_VERSION;
  ojson classes = ojson::array();
  for (const ClassSpec& c : scenario.workload) classes.push_back(class_context(c));
  out["classes"] = std::move(classes);
  ojson pools = ojson::array();
  for (std::size_t i = 0; i < scenario.cluster.pools.size(); ++i)
    pools.push_back(pool_context(scenario.cluster.pools[i], "cluster.pools." + std::to_string(i)));
  out["pools"] = std::move(pools);
  return out;
}

std::string scenario_context_text(const Scenario& scenario) { return scenario_context(scenario).dump(2); }

}  // namespace servesim
