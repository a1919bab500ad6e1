#include "sim/io/engine_parse.h"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/engine/policy_names.h"
#include "sim/io/data_paths.h"
#include "sim/io/did_you_mean.h"

namespace servesim {

namespace {

const std::vector<std::string> kEngineKeys = {
    "policy",       "max_num_seqs",    "max_batched_tokens",     "block_size",
    "prefix_cache", "kv_cache_tokens", "gpu_memory_utilization", "speculative"};
const std::vector<std::string> kCostModels = {"roofline", "constant", "linear", "table"};

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int int_in_range(const Field& f, std::int64_t lowest, std::int64_t highest) {
  const std::int64_t v = f.int_at_least(lowest);
  if (v > highest) {
    f.fail("must be at most " + std::to_string(highest) + ", got " + std::to_string(v));
  }
  return static_cast<int>(v);
}

}  // namespace

EngineConfig parse_engine(const Field& f) {
  f.expect_map(kEngineKeys);
  if (auto spec = f.get("speculative")) {
    spec->fail_at_key("'speculative' is not supported yet in this version");
  }
  EngineConfig e;
  if (auto policy = f.get("policy")) {
    e.policy = policy->as_string();
    const std::vector<std::string> names = scheduling_policy_names();
    if (std::find(names.begin(), names.end(), e.policy) == names.end()) {
      policy->fail(unknown_choice_message("scheduling policy", "policies", e.policy, names));
    }
  }
  if (auto v = f.get("max_num_seqs")) e.max_num_seqs = int_in_range(*v, 1, 1'000'000);
  if (auto v = f.get("max_batched_tokens")) e.max_batched_tokens = v->int_at_least(1);
  if (auto v = f.get("block_size")) {
    e.block_size = int_in_range(*v, 1, 1 << 20);
    if (!is_power_of_two(e.block_size)) {
      v->fail("block_size must be a power of two (1, 2, 4, ..., 16, 32), got " +
              std::to_string(e.block_size));
    }
  }
  if (auto v = f.get("prefix_cache")) e.prefix_cache = v->as_bool();
  if (auto v = f.get("kv_cache_tokens")) {
    e.kv_cache_tokens = v->int_at_least(1);
    if (*e.kv_cache_tokens < e.block_size) {
      v->fail("must hold at least one block of " + std::to_string(e.block_size) + " tokens, got " +
              std::to_string(*e.kv_cache_tokens));
    }
  }
  if (auto v = f.get("gpu_memory_utilization")) {
    e.gpu_memory_utilization = v->as_double();
    if (!(e.gpu_memory_utilization > 0 && e.gpu_memory_utilization <= 1)) {
      v->fail("must be in (0, 1], got " + v->node().Scalar());
    }
  }
  return e;
}

CostModelSpec parse_cost_model(const Field& f) {
  CostModelSpec spec;
  if (f.is_scalar()) {
    spec.kind = f.as_string();
    if (spec.kind == "roofline") return spec;
    if (spec.kind == "constant" || spec.kind == "linear" || spec.kind == "table") {
      f.fail("cost model '" + spec.kind +
             "' needs parameters, e.g. {constant: {step: 10ms}}, "
             "{linear: {base: 1ms, per_token: 0.1ms}} or {table: path.csv}");
    }
    f.fail(unknown_choice_message("cost model", "cost models", spec.kind, kCostModels));
  }
  if (!f.is_map()) {
    f.fail("expected roofline or a mapping like {constant: {step: 10ms}}, got " + f.describe());
  }
  f.expect_map(kCostModels);
  const std::vector<std::string> keys = f.keys();
  if (keys.size() != 1) f.fail("give exactly one cost model, got " + join_choices(keys));
  spec.kind = keys.front();
  const Field body = *f.get(spec.kind);
  if (spec.kind == "roofline") {
    if (!body.is_null() && !(body.is_map() && body.node().size() == 0)) {
      body.fail("roofline takes no parameters (its figures come from the hardware profile)");
    }
  } else if (spec.kind == "constant") {
    body.expect_map({"step"});
    const Field step = body.require("step");
    spec.constant_step_ns = step.as_duration_ns();
    if (spec.constant_step_ns <= 0) {
      step.fail("the step time must be > 0, got " + step.node().Scalar());
    }
  } else if (spec.kind == "linear") {
    body.expect_map({"base", "per_token"});
    spec.linear_base_ns = body.require("base").as_duration_ns();
    const Field per_token = body.require("per_token");
    spec.linear_per_token_ns = per_token.as_duration_s() * 1e9;
    // A step that costs nothing would let the clock stand still.
    if (spec.linear_base_ns <= 0 && spec.linear_per_token_ns <= 0) {
      body.fail_at_key("base and per_token are both 0: every step would take no time");
    }
  } else {  // table
    spec.table_path = existing_data_path(body, "cost table");
  }
  return spec;
}

}  // namespace servesim
