#include "sim/study/summary_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/errors.h"

namespace servesim {

namespace {

using ojson = nlohmann::ordered_json;

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::optional<double> number_from_json(const ojson& v) {
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

// One block (the top level, a class, a pool, or a sweep row's summary): every numeric field
// of the baseline against the same field of the candidate. Sub-objects are left to callers.
void compare_block(const ojson& base, const ojson& cand, const std::string& block, const std::string& key_prefix,
                   const std::string& base_path, const std::string& cand_path, const Tolerances& tol,
                   Comparison& out) {
  for (const auto& [field, bv] : base.items()) {
    if (!(bv.is_number() || bv.is_null())) {
      // A gated figure that is not a number is a broken file, not a field to skip: skipping
      // it would let a comparison pass without looking at it.
      if (field_direction(field) != Direction::neutral)
        throw ConfigError(base_path, 0, key_prefix + field, "must be a number or null, got " + bv.dump());
      continue;  // classes, pools, rejected_reasons, text
    }
    if (!cand.contains(field)) {
      out.skipped.push_back({block, field, true});
      continue;
    }
    const ojson& cv = cand[field];
    if (!(cv.is_number() || cv.is_null()))
      throw ConfigError(cand_path, 0, key_prefix + field, "must be a number or null, got " + cv.dump());

    FieldChange c;
    c.block = block;
    c.field = field;
    c.baseline = number_from_json(bv);
    c.candidate = number_from_json(cv);
    c.direction = field_direction(field);
    c.tolerance = tol.for_field(block, field);
    if (!c.baseline && !c.candidate) continue;  // no samples in either
    const bool gated = c.direction != Direction::neutral;
    if (c.baseline && c.candidate) {
      const double b = *c.baseline, v = *c.candidate;
      if (v == b) c.change = 0;
      else if (b == 0) c.change = v > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
      else c.change = (v - b) / std::abs(b);
      const double worse = c.direction == Direction::higher_is_worse ? c.change : -c.change;
      c.regression = gated && worse > c.tolerance;
      c.improved = gated && -worse > c.tolerance;
      if (gated) ++out.compared;
    } else {
      c.change = std::numeric_limits<double>::quiet_NaN();
      // A figure that had samples and has none now (every request failed, say) is worse;
      // one that appears is not.
      c.regression = gated && c.baseline && !c.candidate;
    }
    if (c.regression) ++out.regressions;
    out.changes.push_back(std::move(c));
  }
  for (const auto& [field, cv] : cand.items())
    if ((cv.is_number() || cv.is_null()) && !base.contains(field)) out.skipped.push_back({block, field, false});
}

// "classes" or "pools": both files must name the same blocks (else they ran different scenarios).
void compare_named_blocks(const ojson& base, const ojson& cand, const char* group, const std::string& block_prefix,
                          const std::string& key_prefix, const std::string& base_path, const std::string& cand_path,
                          const Tolerances& tol, Comparison& out) {
  const std::string key = key_prefix + group;
  const bool in_base = base.contains(group) && base[group].is_object();
  const bool in_cand = cand.contains(group) && cand[group].is_object();
  if (!in_base && !in_cand) return;
  if (!in_base || !in_cand) {
    // A whole group absent from one file is a file of an older format, not another scenario.
    out.notes.push_back(std::string(in_base ? "the candidate" : "the baseline") + " has no " + key +
                        " block; its figures were not compared");
    return;
  }
  for (const auto& [name, block] : cand[group].items())
    if (!base[group].contains(name))
      throw ConfigError(base_path, 0, key + "." + name, "missing; the candidate has it: not the same scenario");
  for (const auto& [name, block] : base[group].items()) {
    if (!cand[group].contains(name))
      throw ConfigError(cand_path, 0, key + "." + name, "missing; the baseline has it: not the same scenario");
    if (!block.is_object() || !cand[group][name].is_object())
      throw ConfigError(cand_path, 0, key + "." + name, "must be an object of figures");
    compare_block(block, cand[group][name], block_prefix + group + "." + name, key + "." + name + ".", base_path,
                  cand_path, tol, out);
  }
}

}  // namespace

Direction field_direction(const std::string& f) {
  const auto starts_with = [&](const char* head) { return f.rfind(head, 0) == 0; };
  if (has_suffix(f, "_ms")) return Direction::higher_is_worse;
  if (has_suffix(f, "_throughput") || f == "completed" || f == "prefix_cache_hit_rate") return Direction::lower_is_worse;
  // The SLO's own figures: requests that met it, their share, their rate (and the _mean_itl
  // variants of the last two).
  if (f == "slo_met" || starts_with("slo_attainment") || starts_with("goodput")) return Direction::lower_is_worse;
  if (f == "rejected" || f == "unfinished" || f == "backlog" || f == "saturated") return Direction::higher_is_worse;
  // Unit prices: per 1M tokens, per request, per session, the cluster's per hour (sweeps),
  // and what a sweep point pays per 1M output tokens.
  if (starts_with("cost_per_") || f == "paid_per_1m_output_tokens") return Direction::higher_is_worse;
  return Direction::neutral;
}

double Tolerances::for_field(const std::string& block, const std::string& field) const {
  if (auto it = per_field.find(block + "." + field); it != per_field.end()) return it->second;
  if (auto it = per_field.find(field); it != per_field.end()) return it->second;
  return default_fraction;
}

Comparison compare_summaries(const ojson& baseline, const ojson& candidate, const std::string& baseline_path,
                             const std::string& candidate_path, const Tolerances& tolerances) {
  if (!baseline.is_object() || !baseline.contains("completed"))
    throw ConfigError(baseline_path, 0, "completed", "missing; is this a summary.json of servesim run?");
  if (!candidate.is_object()) throw ConfigError(candidate_path, 0, "", "must be a JSON object (a summary.json)");
  Comparison out;
  compare_block(baseline, candidate, "overall", "", baseline_path, candidate_path, tolerances, out);
  compare_named_blocks(baseline, candidate, "classes", "", "", baseline_path, candidate_path, tolerances, out);
  compare_named_blocks(baseline, candidate, "pools", "", "", baseline_path, candidate_path, tolerances, out);
  out.deployment = compare_deployments(baseline, candidate, baseline_path, candidate_path);
  return out;
}

DeploymentCheck compare_deployments(const ojson& baseline, const ojson& candidate, const std::string& baseline_path,
                                    const std::string& candidate_path) {
  DeploymentCheck check;
  const bool in_base = baseline.contains("deployment"), in_cand = candidate.contains("deployment");
  if (!in_base || !in_cand) {
    const std::string lacking = !in_base && !in_cand ? baseline_path + " and " + candidate_path
                                : !in_base            ? baseline_path
                                                      : candidate_path;
    check.why_unchecked = lacking + (!in_base && !in_cand ? " have" : " has") +
                          " no \"deployment\" block (written by an older servesim)";
    return check;
  }
  // The block's form: {"scenario": TEXT, "pools": {NAME: {KEY: text, number or null}}}.
  auto pools_of = [](const ojson& file, const std::string& path) -> const ojson& {
    const ojson& d = file["deployment"];
    if (!d.is_object() || !d.contains("pools") || !d["pools"].is_object())
      throw ConfigError(path, 0, "deployment", "must be an object with \"pools\": {NAME: {model, hardware, ...}}");
    for (const auto& [name, pool] : d["pools"].items())
      if (!pool.is_object()) throw ConfigError(path, 0, "deployment.pools." + name, "must be an object");
    return d["pools"];
  };
  const ojson& base_pools = pools_of(baseline, baseline_path);
  const ojson& cand_pools = pools_of(candidate, candidate_path);
  check.checked = true;
  auto text = [](const ojson* v) -> std::string {
    if (v == nullptr || v->is_null()) return "none";
    return v->is_string() ? v->get<std::string>() : v->dump();
  };
  auto at = [](const ojson& obj, const std::string& key) { return obj.contains(key) ? &obj[key] : nullptr; };
  const ojson* base_scenario = at(baseline["deployment"], "scenario");
  const ojson* cand_scenario = at(candidate["deployment"], "scenario");
  if (text(base_scenario) != text(cand_scenario))
    check.differences.push_back({"", "scenario", text(base_scenario), text(cand_scenario)});
  // Pools in the baseline's order, then those only the candidate has; keys likewise.
  std::vector<std::string> names;
  for (const auto& [name, pool] : base_pools.items()) names.push_back(name);
  for (const auto& [name, pool] : cand_pools.items())
    if (!base_pools.contains(name)) names.push_back(name);
  for (const std::string& name : names) {
    const ojson* b = at(base_pools, name);
    const ojson* c = at(cand_pools, name);
    if (b == nullptr || c == nullptr) {
      check.differences.push_back({name, "pool", b ? "present" : "none", c ? "present" : "none"});
      continue;
    }
    std::vector<std::string> keys;
    for (const auto& [key, v] : b->items()) keys.push_back(key);
    for (const auto& [key, v] : c->items())
      if (!b->contains(key)) keys.push_back(key);
    for (const std::string& key : keys) {
      const ojson* bv = at(*b, key);
      const ojson* cv = at(*c, key);
      if (text(bv) != text(cv)) check.differences.push_back({name, key, text(bv), text(cv)});
    }
  }
  return check;
}

Comparison compare_sweep_tables(const SweepTable& baseline, const SweepTable& candidate,
                                const std::string& baseline_path, const std::string& candidate_path,
                                const Tolerances& tolerances) {
  if (baseline.axes != candidate.axes)
    throw ConfigError(candidate_path, 0, "axes",
                      "are " + ojson(candidate.axes).dump() + " but " + ojson(baseline.axes).dump() + " in " +
                          baseline_path + ": not the same sweep");
  std::map<std::int64_t, const ojson*> by_point;
  for (const auto& row : candidate.rows) by_point[row["point"].get<std::int64_t>()] = &row;
  Comparison out;
  if (baseline.scenario != candidate.scenario)
    out.notes.push_back("the baseline is a sweep of scenario '" + baseline.scenario + "', the candidate of '" +
                        candidate.scenario + "'");
  std::vector<std::int64_t> baseline_points;
  for (const auto& row : baseline.rows) baseline_points.push_back(row["point"].get<std::int64_t>());
  std::string extra;
  for (const auto& [p, row] : by_point)
    if (std::find(baseline_points.begin(), baseline_points.end(), p) == baseline_points.end())
      extra += (extra.empty() ? "" : ", ") + std::to_string(p);
  if (!extra.empty()) out.notes.push_back("points only the candidate has, not compared: " + extra);
  for (const auto& brow : baseline.rows) {
    const std::int64_t p = brow["point"].get<std::int64_t>();
    const std::string block = "point." + std::to_string(p);
    const auto it = by_point.find(p);
    if (it == by_point.end()) throw ConfigError(candidate_path, 0, "rows (point " + std::to_string(p) + ")", "missing; the baseline has it");
    const ojson& crow = *it->second;
    if (brow["values"] != crow["values"])
      throw ConfigError(candidate_path, 0, "rows (point " + std::to_string(p) + ").values",
                        "are " + crow["values"].dump() + " but " + brow["values"].dump() + " in " + baseline_path +
                            ": not the same sweep");
    const bool b_ok = brow["summary"].is_object(), c_ok = crow["summary"].is_object();
    if (b_ok != c_ok) {
      FieldChange c;
      c.block = block;
      c.field = "error";
      c.direction = Direction::higher_is_worse;
      c.change = std::numeric_limits<double>::quiet_NaN();
      c.regression = b_ok;  // ran before, fails now
      c.improved = !b_ok;
      if (c.regression) ++out.regressions;
      out.changes.push_back(std::move(c));
    }
    if (!b_ok || !c_ok) continue;
    const std::string prefix = "rows (point " + std::to_string(p) + ").summary.";
    compare_block(brow["summary"], crow["summary"], block, prefix, baseline_path, candidate_path, tolerances, out);
    compare_named_blocks(brow["summary"], crow["summary"], "classes", block + ".", prefix, baseline_path, candidate_path,
                         tolerances, out);
  }
  return out;
}

std::vector<std::string> unused_tolerances(const Comparison& c, const Tolerances& tolerances) {
  std::vector<std::string> unused;
  for (const auto& [key, value] : tolerances.per_field) {
    bool used = false;
    for (const auto& ch : c.changes) used = used || key == ch.field || key == ch.block + "." + ch.field;
    for (const auto& sk : c.skipped) used = used || key == sk.field || key == sk.block + "." + sk.field;
    if (!used) unused.push_back(key);
  }
  return unused;
}

std::vector<std::string> ungated_tolerances(const Comparison& c, const Tolerances& tolerances) {
  std::vector<std::string> ungated;
  for (const auto& [key, value] : tolerances.per_field) {
    bool matched = false, gated = false;
    for (const auto& ch : c.changes) {
      if (key != ch.field && key != ch.block + "." + ch.field) continue;
      matched = true;
      gated = gated || ch.direction != Direction::neutral;
    }
    if (matched && !gated) ungated.push_back(key);
  }
  return ungated;
}

}  // namespace servesim
