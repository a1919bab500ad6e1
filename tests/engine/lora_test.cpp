// Multi-LoRA serving in one replica, traced by hand: max_loras distinct adapters per step
// (the rest of the queue is skipped, vLLM's scheduler), and adapter loads into GPU slots
// from CPU memory or disk, each paid once in the step that first needs it.
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/lora_slots.h"
#include "sim/engine/memory_plan.h"
#include "sim/engine/replica.h"
#include "sim/metrics/replica_metrics.h"
#include "sim/model/lora_shapes.h"

namespace lora_test {

using namespace servesim;

namespace {

// 1 us per step plus 10 ns per token computed.
class AffineCost final : public CostModel {
 public:
  StepCost step_cost(const BatchShape& b) const override {
    StepCost c;
    c.total_ns = 1000 + 10 * b.total_tokens();
    return c;
  }
  std::string describe() const override { return "affine test model"; }
};

struct Finished : ReplicaListener {
  std::vector<std::pair<std::uint64_t, Tick>> done;
  void on_request_done(RequestState& r, Tick now) override { done.emplace_back(r.spec.id, now); }
};

// Adapters of 1 MB on one GPU: 1 ms over a 1 GB/s host link, 10 ms more from a 0.1 GB/s disk.
LoraLoadCost test_load_cost() {
  LoraLoadCost cost;
  cost.adapter_bytes_per_gpu = 1e6;
  cost.adapter_bytes = 1e6;
  cost.host_link_bytes_per_s = 1e9;
  cost.disk_bytes_per_s = 1e8;
  return cost;
}
constexpr Tick kFromCpuNs = 1'000'000;
constexpr Tick kFromDiskNs = 11'000'000;

struct Harness {
  Simulator sim;
  MetricsRecorder metrics{{"default"}, {"main"}};
  ReplicaMetrics measured{metrics, 0};
  Finished listener;
  EngineConfig config;
  std::unique_ptr<Replica> replica;
  std::vector<std::string> steps;
  std::vector<Tick> starts;
  std::vector<std::unique_ptr<RequestState>> states;

  Harness(int max_loras, int max_cpu_loras, const std::string& policy = "chunked-prefill") {
    config.policy = policy;
    config.preempt_lower_priority = true;  // read by the priority policy alone
    config.max_batched_tokens = 100;
    config.max_num_seqs = 4;
    config.block_size = 4;
    config.lora.enabled = true;
    config.lora.max_loras = max_loras;
    config.lora.max_cpu_loras = max_cpu_loras;
    auto reg = make_policy_registry();
    replica = std::make_unique<Replica>(sim, 0, 0, config, 100, reg.find(config.policy)->factory(),
                                        std::make_shared<AffineCost>(), measured, listener, 0);
    replica->set_lora_load_cost(test_load_cost());
    replica->add_step_observer([this](int, Tick start, const StepPlan& plan, const StepCost&) {
      std::string s;
      for (const auto& c : plan.chunks)
        s += (s.empty() ? "" : " ") + std::to_string(c.request->spec.id) + ":" + std::to_string(c.num_tokens);
      steps.push_back(s);
      starts.push_back(start);
    });
  }
  void submit(std::uint64_t id, int adapter, std::int64_t prompt, std::int64_t output, int priority = 0) {
    states.push_back(std::make_unique<RequestState>());
    RequestState& r = *states.back();
    r.spec.id = id;
    r.spec.priority = priority;
    r.spec.lora_adapter = static_cast<std::int16_t>(adapter);
    r.spec.prompt_tokens = prompt;
    r.spec.output_tokens = output;
    r.spec.arrival_ns = sim.now();
    replica->submit(r);
  }
};

}  // namespace

TEST_CASE("lora: more distinct adapters than max_loras serialise - the queue skips past them", "[engine][lora]") {
  Harness h(/*max_loras=*/1, /*max_cpu_loras=*/2);
  h.submit(1, /*adapter=*/1, 4, 2);  // starts step 1 at once, alone
  h.submit(2, /*adapter=*/2, 4, 2);
  h.submit(3, /*adapter=*/1, 4, 2);
  h.sim.run();
  // Step 2: A (adapter 1) decodes; B's adapter 2 would make two, so B is skipped and C
  // (adapter 1) joins behind it. B waits until no request of adapter 1 runs.
  CHECK(h.steps == std::vector<std::string>{"1:4", "1:1 3:4", "3:1", "2:4", "2:1"});
  // Adapter 1 from disk in step 1, adapter 2 from disk in step 4: two loads, both from disk.
  CHECK(h.replica->stats().lora_loads[0] == 0);
  CHECK(h.replica->stats().lora_loads[1] == 2);
  CHECK(h.replica->stats().lora_load_ns == 2 * kFromDiskNs);
}

TEST_CASE("lora: max_loras 2 runs both adapters in one batch", "[engine][lora]") {
  Harness h(/*max_loras=*/2, /*max_cpu_loras=*/2);
  h.submit(1, 1, 4, 2);
  h.submit(2, 2, 4, 2);
  h.submit(3, 1, 4, 2);
  h.sim.run();
  CHECK(h.steps == std::vector<std::string>{"1:4", "1:1 2:4 3:4", "2:1 3:1"});
}

TEST_CASE("lora: the base model takes no slot", "[engine][lora]") {
  Harness h(/*max_loras=*/1, /*max_cpu_loras=*/1);
  h.submit(1, 1, 4, 2);
  h.submit(2, 0, 4, 2);  // no adapter: joins beside adapter 1, loads nothing
  h.submit(3, 2, 4, 2);
  h.sim.run();
  CHECK(h.steps == std::vector<std::string>{"1:4", "1:1 2:4", "2:1 3:4", "3:1"});
}

TEST_CASE("lora: the priority policy does not preempt for a head that max_loras keeps out", "[engine][lora]") {
  Harness h(/*max_loras=*/1, /*max_cpu_loras=*/2, "priority");
  h.submit(1, /*adapter=*/1, 4, 3, /*priority=*/0);  // starts step 1 at once, alone
  h.submit(3, /*adapter=*/0, 4, 3, /*priority=*/-1);
  h.submit(2, /*adapter=*/2, 4, 2, /*priority=*/1);
  h.sim.run();
  // Step 2: B (id 2, first in serving order) is skipped for max_loras and C (id 3, the base
  // model) joins. Preempting C, the lowest priority, would not let B in (adapter 1 still
  // runs) and C would join again past B: B waits for A's last token (step 3) instead.
  CHECK(h.steps == std::vector<std::string>{"1:4", "1:1 3:4", "1:1 3:1", "3:1 2:4", "2:1"});
  CHECK(h.replica->stats().preemptions == 0);
}

TEST_CASE("lora: an adapter miss costs its load time once and a hit nothing", "[engine][lora]") {
  Harness h(/*max_loras=*/1, /*max_cpu_loras=*/2);
  // A (adapter 1): step 1 prices 4 tokens (1040 ns) plus the load from disk; step 2 its decode.
  h.submit(1, 1, 4, 2);
  h.sim.run();
  REQUIRE(h.starts.size() == 2);
  CHECK(h.starts[1] == 1040 + kFromDiskNs);
  const Tick a_end = h.starts[1] + 1010;
  CHECK(h.listener.done.back() == std::make_pair<std::uint64_t, Tick>(1, Tick{a_end}));
  // B (adapter 1 again): in its GPU slot, nothing to load.
  h.submit(2, 1, 4, 2);
  h.sim.run();
  CHECK(h.starts[3] - h.starts[2] == 1040);
  // C (adapter 2): from disk; it takes the one GPU slot (adapter 1 stays in CPU memory).
  h.submit(3, 2, 4, 2);
  h.sim.run();
  CHECK(h.starts[5] - h.starts[4] == 1040 + kFromDiskNs);
  // D (adapter 1): back from CPU memory over the host link only.
  h.submit(4, 1, 4, 2);
  h.sim.run();
  CHECK(h.starts[7] - h.starts[6] == 1040 + kFromCpuNs);
  CHECK(h.replica->stats().lora_loads[0] == 1);
  CHECK(h.replica->stats().lora_loads[1] == 2);
  CHECK(h.replica->stats().lora_load_ns == 2 * kFromDiskNs + kFromCpuNs);
}

TEST_CASE("lora: a request's first step is a hit when its adapter is in a GPU slot and a miss when it loads it",
          "[engine][lora]") {
  Harness h(/*max_loras=*/1, /*max_cpu_loras=*/2);
  h.submit(1, /*adapter=*/1, 4, 2);  // step 1 alone: adapter 1 loads (a miss)
  h.submit(2, /*adapter=*/2, 4, 2);
  h.submit(3, /*adapter=*/2, 4, 2);
  h.submit(4, /*adapter=*/1, 4, 2);
  h.sim.run();
  // Step 2: A decodes and D (adapter 1, in its slot) joins past B and C: a hit. Once
  // adapter 1's requests are done, B and C start together: one load, two misses.
  CHECK(h.steps == std::vector<std::string>{"1:4", "1:1 4:4", "4:1", "2:4 3:4", "2:1 3:1"});
  CHECK(h.replica->stats().lora_request_hits == 1);
  CHECK(h.replica->stats().lora_request_misses == 3);
  CHECK(h.replica->stats().lora_loads[1] == 2);
}

TEST_CASE("lora adapter cache: least recently used out of GPU slots and CPU memory", "[engine][lora]") {
  LoraConfig config;
  config.max_loras = 2;
  config.max_cpu_loras = 3;
  LoraAdapterCache cache(config);
  using W = LoraAdapterCache::Where;
  CHECK(cache.activate(1) == W::disk);
  CHECK(cache.activate(2) == W::disk);
  CHECK(cache.activate(1) == W::gpu);   // GPU order now 2, 1
  CHECK(cache.activate(3) == W::disk);  // evicts 2 from the GPU; CPU holds 1, 2, 3
  CHECK(cache.activate(2) == W::cpu);   // evicts 1 from the GPU; CPU order 1, 3, 2
  CHECK(cache.activate(4) == W::disk);  // CPU full: evicts 1 (its least recent); GPU evicts 3
  CHECK_FALSE(cache.on_cpu(1));
  CHECK(cache.activate(1) == W::disk);
}

}  // namespace lora_test

namespace lora_test {

using namespace servesim;

TEST_CASE("lora cost: the kernels take the larger of their FLOPs and their adapters' bytes", "[engine][lora]") {
  LoraLoadCost cost;
  cost.flops_per_token_per_gpu = 1e9;
  cost.peak_flops_per_s = 1e15;   // 1 us per token
  cost.adapter_bytes_per_gpu = 1e6;
  cost.memory_bytes_per_s = 1e12;  // 1 us per adapter
  CHECK(cost.compute_ns(100, 2) == 100'000);  // FLOPs: 100 us; bytes: 2 us
  CHECK(cost.compute_ns(1, 8) == 8'000);      // bytes: 8 us; FLOPs: 1 us
  CHECK(cost.compute_ns(0, 8) == 0);          // no adapter's token: no kernel
}

TEST_CASE("lora memory: max_loras slots at max_lora_rank come out of the KV cache", "[engine][lora]") {
  ModelSpec m;
  m.name = "gqa";
  m.num_layers = 32;
  m.hidden_size = 6144;
  m.num_attention_heads = 48;
  m.num_kv_heads = 8;
  m.head_dim = 128;
  m.intermediate_size = 14336;
  m.vocab_size = 128256;
  // Per layer, d_in + d_out: q and o 2 x (6144 + 6144), k and v 2 x (6144 + 1024), gate, up
  // and down 3 x (6144 + 14336): 100352; x rank 16 x 32 layers = 51380224 parameters.
  CHECK(lora_adapter_params(m, 16) == 51'380'224.0);
  HardwareSpec hw;
  hw.memory_bytes = 80e9;
  Deployment dep;  // tp 1, bf16
  EngineConfig plain;
  EngineConfig lora = plain;
  lora.lora.enabled = true;
  lora.lora.max_loras = 4;
  const MemoryPlan a = plan_memory(m, hw, dep, plain);
  const MemoryPlan b = plan_memory(m, hw, dep, lora);
  // 4 slots x 51380224 parameters x 2 bytes.
  const double slots = 4 * 51'380'224.0 * 2;
  CHECK(b.weight_bytes_per_gpu - a.weight_bytes_per_gpu == Approx(slots));
  CHECK(a.kv_bytes_per_gpu - b.kv_bytes_per_gpu == Approx(slots));
  CHECK(b.kv_capacity_tokens ==
        static_cast<std::int64_t>(std::floor(static_cast<double>(a.kv_capacity_tokens) * b.kv_bytes_per_gpu / a.kv_bytes_per_gpu)));
  CHECK(b.kv_capacity_tokens < a.kv_capacity_tokens);
}

}  // namespace lora_test
