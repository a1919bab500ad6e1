// Simulation: multi-LoRA adapter loads in summary.json (docs/lora.md, docs/metrics.md): a
// "lora" object in each pool whose engine serves adapters and overall. A run without LoRA
// writes none.
#include "sim/cluster/simulation.h"

namespace servesim {

namespace {

struct LoraCounts {
  std::int64_t loads_from_cpu = 0, loads_from_disk = 0, request_hits = 0, request_misses = 0;
  Tick load_ns = 0;

  void add(const ReplicaStats& st) {
    loads_from_cpu += st.lora_loads[0];
    loads_from_disk += st.lora_loads[1];
    request_hits += st.lora_request_hits;
    request_misses += st.lora_request_misses;
    load_ns += st.lora_load_ns;
  }
  void add(const LoraCounts& o) {
    loads_from_cpu += o.loads_from_cpu;
    loads_from_disk += o.loads_from_disk;
    request_hits += o.request_hits;
    request_misses += o.request_misses;
    load_ns += o.load_ns;
  }
  FieldGroup group() const {
    FieldGroup g{"lora", {}, {}};
    g.set_count("adapter_loads", loads_from_cpu + loads_from_disk);
    g.set_count("adapter_loads_from_disk", loads_from_disk);
    g.set("adapter_load_s", seconds_from_ticks(load_ns));  // summed over replicas' steps
    g.set_count("request_hits", request_hits);
    g.set_count("request_misses", request_misses);
    const std::int64_t requests = request_hits + request_misses;
    g.set("request_hit_rate", requests > 0 ? static_cast<double>(request_hits) / static_cast<double>(requests) : 0.0);
    return g;
  }
};

}  // namespace

void Simulation::note_lora(RunResult& result) const {
  LoraCounts all;
  bool any = false;
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    if (!pools_[p]->config().engine.lora.enabled) continue;
    any = true;
    LoraCounts pool;
    for (const auto& replica : pools_[p]->replicas()) pool.add(replica->stats());
    result.summary.pools[p].second.objects.push_back(pool.group());
    all.add(pool);
  }
  if (any) result.summary.overall.objects.push_back(all.group());
}

}  // namespace servesim
