#include "sim/study/summary_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

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
  out["classes"] = std::move(classes);
  out["pools"] = std::move(pools);
  return out;
}

nlohmann::ordered_json replicates_to_json(const ReplicateIntervals& replicates) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["n"] = replicates.n;
  out["seeds"] = replicates.seeds;
  for (const auto& [name, f] : replicates.figures) out[name] = {{"mean", f.mean}, {"lo", f.lo}, {"hi", f.hi}};
  return out;
}

}  // namespace servesim
