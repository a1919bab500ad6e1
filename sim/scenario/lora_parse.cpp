#include "sim/scenario/lora_parse.h"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/workload/lora_demand.h"

namespace servesim {

namespace {

const std::vector<std::string> kDemandKeys = {"adapters", "distribution", "exponent", "first_adapter"};
const std::vector<std::string> kConfigKeys = {"max_loras", "max_cpu_loras", "max_lora_rank", "adapter_mb", "disk_gb_s"};

// An integer in [lowest, highest]; anything else fails at the key.
int bounded_int(const Field& f, std::int64_t lowest, std::int64_t highest) {
  const std::int64_t n = f.int_at_least(lowest);
  if (n > highest) f.fail("must be at most " + std::to_string(highest));
  return static_cast<int>(n);
}

}  // namespace

LoraDemandSpec parse_lora_demand(const Field& f) {
  f.expect_map(kDemandKeys);
  LoraDemandSpec d;
  const Field adapters = f.require("adapters");
  d.adapters = bounded_int(adapters, 1, kMaxLoraAdapterId);
  if (auto v = f.get("first_adapter")) d.first_adapter = bounded_int(*v, 1, kMaxLoraAdapterId);
  if (static_cast<std::int64_t>(d.first_adapter) + d.adapters - 1 > kMaxLoraAdapterId) {
    adapters.fail("adapter ids run from first_adapter (" + std::to_string(d.first_adapter) + ") to at most " +
                  std::to_string(kMaxLoraAdapterId));
  }
  if (auto v = f.get("distribution")) {
    const std::string name = v->as_string();
    if (name == "zipf") d.distribution = LoraDemandSpec::Distribution::zipf;
    else if (name != "uniform") v->fail("unknown adapter distribution '" + name + "' (valid: uniform, zipf)");
  }
  if (auto v = f.get("exponent")) {
    if (d.distribution != LoraDemandSpec::Distribution::zipf) v->fail_at_key("'exponent' needs distribution: zipf");
    d.zipf_exponent = v->positive_double();
  }
  return d;
}

LoraConfig parse_lora_config(const Field& f) {
  f.expect_map(kConfigKeys);
  LoraConfig c;
  c.enabled = true;
  if (auto v = f.get("max_loras")) c.max_loras = bounded_int(*v, 1, kMaxLoraAdapterId);
  c.max_cpu_loras = c.max_loras;  // LoRAConfig: max_cpu_loras unset takes max_loras
  if (auto v = f.get("max_cpu_loras")) {
    const int n = bounded_int(*v, 1, kMaxLoraAdapterId);
    if (n < c.max_loras) {
      v->fail("must be at least max_loras (" + std::to_string(c.max_loras) + "): vLLM's CPU cache holds every GPU adapter");
    }
    c.max_cpu_loras = n;
  }
  if (auto v = f.get("max_lora_rank")) {
    // LoRAConfig.max_lora_rank: one of MaxLoRARanks (vllm/config/lora.py).
    const std::int64_t r = v->as_int();
    const std::vector<std::int64_t> ranks = {1, 8, 16, 32, 64, 128, 256, 320, 512};
    if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) v->fail("must be one of 1, 8, 16, 32, 64, 128, 256, 320, 512 (vLLM's ranks)");
    c.max_lora_rank = static_cast<int>(r);
  }
  if (auto v = f.get("adapter_mb")) {
    c.adapter_bytes = v->positive_double() * 1e6;
    c.adapter_bytes_given = true;
  }
  c.disk_bytes_per_s = f.require("disk_gb_s").positive_double() * 1e9;
  return c;
}

void check_lora_for_pool(const Field& f, const PoolConfig& pool) {
  const LoraConfig& l = pool.engine.lora;
  if (!l.enabled) return;
  const Field at = f.get("lora").value_or(f);
  // continuous and static-batching fill batches with loops of their own, which do not
  // keep max_loras.
  const std::vector<std::string> policies = {"chunked-prefill", "decode-priority", "priority", "inflight", "prefill-first"};
  if (std::find(policies.begin(), policies.end(), pool.engine.policy) == policies.end()) {
    at.fail_at_key("multi-LoRA serving needs policy chunked-prefill, decode-priority, priority, inflight or "
                   "prefill-first, not '" + pool.engine.policy + "'");
  }
  if (!(pool.hardware.host_link_bandwidth_bytes_per_s > 0)) {
    at.fail_at_key("loading adapters needs the hardware's host_link_bandwidth_gb_s, which '" + pool.hardware.name +
                   "' does not give");
  }
  if (!l.adapter_bytes_given && pool.model.num_experts > 0) {
    at.fail_at_key("the adapter size is derived for dense models only: give adapter_mb for '" + pool.model.name + "'");
  }
}

void check_lora_classes(const Field& workload, const std::vector<ClassSpec>& classes, const ClusterConfig& cluster) {
  bool served = false;
  for (const PoolConfig& pool : cluster.pools) served = served || pool.engine.lora.enabled;
  if (served) return;
  const std::vector<Field> items = workload.items();
  for (std::size_t i = 0; i < classes.size() && i < items.size(); ++i) {
    if (!classes[i].lora) continue;
    items[i].get("lora").value_or(items[i]).fail_at_key(
        "the class's requests name LoRA adapters, but no pool serves adapters (give its engine a lora block: "
        "{max_loras, disk_gb_s})");
  }
}

}  // namespace servesim
