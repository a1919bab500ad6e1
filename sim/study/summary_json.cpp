#include "sim/study/summary_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>

#include "sim/model/dtype.h"
#include "sim/core/json_values.h"
#include "sim/scenario/scenario.h"

namespace servesim {

namespace {

nlohmann::ordered_json reasons_to_json(const SummaryBlock& block) {
  nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : block.rejected_reasons) reasons[reason] = count;
  return reasons;
}

nlohmann::ordered_json group_to_json(const FieldGroup& group) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, value] : group.fields) {
    const bool count = std::find(group.count_fields.begin(), group.count_fields.end(), name) != group.count_fields.end();
    if (!std::isfinite(value)) out[name] = nullptr;
    else if (count) out[name] = static_cast<std::int64_t>(std::llround(value));
    else out[name] = value;
  }
  return out;
}

// A class's "slo_verdict": {OBJECTIVE: {field, target_ms, value_ms, met}} (docs/metrics.md).
nlohmann::ordered_json verdict_to_json(const std::vector<SloObjectiveVerdict>& verdict) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const SloObjectiveVerdict& v : verdict)
    out[v.objective] = {{"field", v.field}, {"target_ms", v.target_ms}, {"value_ms", json_number_or_null(v.value_ms)},
                        {"met", v.met}};
  return out;
}

// The run's "slo_verdict": met when every class met every objective it states; "missed"
// lists CLASS.OBJECTIVE of the others, and "no_samples" (only when there are any) those met
// only because the class has no sample of the figure (TTFT when every output is 0 tokens):
// a verdict never rests on a figure that does not exist without saying so. nullopt when no
// class states an SLO.
std::optional<nlohmann::ordered_json> overall_verdict_to_json(const RunSummary& summary) {
  bool any = false;
  nlohmann::ordered_json missed = nlohmann::ordered_json::array();
  nlohmann::ordered_json no_samples = nlohmann::ordered_json::array();
  for (const auto& [name, block] : summary.classes)
    for (const SloObjectiveVerdict& v : block.slo_verdict) {
      any = true;
      if (!v.met) missed.push_back(name + "." + v.objective);
      else if (!std::isfinite(v.value_ms)) no_samples.push_back(name + "." + v.objective);
    }
  if (!any) return std::nullopt;
  nlohmann::ordered_json out{{"met", missed.empty()}, {"missed", std::move(missed)}};
  if (!no_samples.empty()) out["no_samples"] = std::move(no_samples);
  return out;
}

// A file named by its path (a calibrated engine profile beside the scenario): its name
// alone, so the same deployment reads the same from any folder.
std::string file_name(const std::string& path) {
  if (path.find('/') == std::string::npos && path.find('\\') == std::string::npos) return path;
  return std::filesystem::path(path).filename().string();
}

nlohmann::ordered_json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

}  // namespace

nlohmann::ordered_json summary_block_to_json(const SummaryBlock& block) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  bool reasons_written = false;
  for (const auto& [name, value] : block.fields) {
    if (!std::isfinite(value)) {
      out[name] = nullptr;  // JSON has no NaN or infinity
    } else if (block.is_count(name)) {
      out[name] = static_cast<std::int64_t>(std::llround(value));
    } else {
      // nlohmann prints the shortest text that reads back as the same double, so the
      // output is exact and the same on every run.
      out[name] = value;
    }
    if (name == "rejected") {
      out["rejected_reasons"] = reasons_to_json(block);
      reasons_written = true;
    }
    for (const auto& l : block.labels)
      if (l.after == name) out[l.name] = l.value;
  }
  for (const auto& l : block.labels)
    if (!block.has(l.after)) out[l.name] = l.value;
  if (!reasons_written && !block.rejected_reasons.empty()) {
    out["rejected_reasons"] = reasons_to_json(block);
  }
  for (const FieldGroup& group : block.objects) out[group.name] = group_to_json(group);
  if (!block.slo_verdict.empty()) out["slo_verdict"] = verdict_to_json(block.slo_verdict);
  if (!block.replicas.empty()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const FieldGroup& group : block.replicas) list.push_back(group_to_json(group));
    out["replicas"] = std::move(list);
  }
  return out;
}

nlohmann::ordered_json summary_to_json(const RunSummary& summary) {
  nlohmann::ordered_json out = summary_block_to_json(summary.overall);
  nlohmann::ordered_json classes = nlohmann::ordered_json::object();
  for (const auto& [name, block] : summary.classes) classes[name] = summary_block_to_json(block);
  nlohmann::ordered_json pools = nlohmann::ordered_json::object();
  for (const auto& [name, block] : summary.pools) pools[name] = summary_block_to_json(block);
  if (auto verdict = overall_verdict_to_json(summary)) out["slo_verdict"] = std::move(*verdict);
  out["classes"] = std::move(classes);
  out["pools"] = std::move(pools);
  if (!summary.deployment.pools.empty()) out["deployment"] = deployment_to_json(summary.deployment);
  return out;
}

void describe_deployment(RunSummary& summary, const Scenario& scenario) {
  DeploymentInfo d;
  d.scenario = file_name(scenario.source_file);
  for (const PoolConfig& p : scenario.cluster.pools) {
    PoolDeploymentInfo info;
    info.pool = p.name;
    info.model = p.model.name;
    info.weights = std::string(dtype_name(p.deployment.weights));
    info.kv = std::string(dtype_name(p.deployment.kv));
    info.hardware = p.hardware.name;
    info.tp = p.deployment.tp;
    info.pp = p.deployment.pp;
    info.ep = p.deployment.ep;
    info.replicas = p.replicas;
    info.min_replicas = p.autoscale ? p.autoscale->min_replicas : -1;
    info.engine = file_name(p.engine.preset);
    info.engine_version = p.engine.version;
    info.cost_model = p.cost_model.kind;
    d.pools.push_back(std::move(info));
  }
  summary.deployment = std::move(d);
}

nlohmann::ordered_json deployment_to_json(const DeploymentInfo& deployment) {
  if (deployment.pools.empty()) return nullptr;
  nlohmann::ordered_json pools = nlohmann::ordered_json::object();
  for (const PoolDeploymentInfo& p : deployment.pools) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["model"] = p.model;
    j["weights"] = p.weights;
    j["kv"] = p.kv;
    j["hardware"] = p.hardware;
    j["tp"] = p.tp;
    j["pp"] = p.pp;
    j["ep"] = p.ep;
    j["replicas"] = p.replicas;
    if (p.min_replicas >= 0) j["min_replicas"] = p.min_replicas;
    j["engine"] = text_or_null(p.engine);
    j["engine_version"] = text_or_null(p.engine_version);
    j["cost_model"] = p.cost_model;
    pools[p.pool] = std::move(j);
  }
  return nlohmann::ordered_json{{"scenario", deployment.scenario}, {"pools", std::move(pools)}};
}

nlohmann::ordered_json replicates_to_json(const ReplicateIntervals& replicates) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["n"] = replicates.n;
  out["seeds"] = replicates.seeds;
  for (const auto& [name, f] : replicates.figures) out[name] = {{"mean", f.mean}, {"lo", f.lo}, {"hi", f.hi}};
  return out;
}

}  // namespace servesim
