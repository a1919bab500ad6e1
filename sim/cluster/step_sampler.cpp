#include "sim/cluster/step_sampler.h"

#include <memory>

#include "sim/hardware/power_model.h"

namespace servesim {

StepSample sample_step(const Replica& replica, int pool, int replica_index, Tick start_ns, const StepPlan& plan,
                       const StepCost& cost) {
  StepSample s;
  s.pool = pool;
  s.replica = replica_index;
  s.start_ns = start_ns;
  s.duration_ns = cost.total_ns;
  s.batch = static_cast<std::int64_t>(plan.chunks.size());
  for (const auto& c : plan.chunks) {
    const RequestState& r = *c.request;
    // The split sched::add_chunk uses for the batch shape: a prompt chunk or a multi-token
    // recompute is prefill work, a one-token chunk past the prompt is a decode. (Under
    // speculation a decode's verify pass still counts as one decode here.)
    if (r.in_prefill() || c.num_tokens > 1) {
      s.prefill_tokens += c.num_tokens;
    } else {
      s.decode_tokens += 1;
    }
    // The step samples a token at the end of a chunk that computes all the request had left
    // (the counters still describe the state before the step).
    if (c.num_tokens == r.remaining() && r.spec.output_tokens > 0) s.output_tokens += 1 + c.spec_accepted;
  }
  s.kv_used_blocks = replica.kv().used_blocks();
  s.kv_total_blocks = replica.kv().total_blocks();
  s.waiting = replica.num_waiting();
  s.running = replica.num_running();
  return s;
}

void add_step_sampler(Simulation& sim, std::function<void(const StepSample&)> fn, bool energy) {
  auto shared = std::make_shared<std::function<void(const StepSample&)>>(std::move(fn));
  for (int p = 0; p < static_cast<int>(sim.pools().size()); ++p) {
    const PoolConfig& cfg = sim.pools()[static_cast<std::size_t>(p)]->config();
    // The meter's power model (sim/metrics/energy_meter.cpp), for the timeseries' power_w.
    const PowerModel power = energy ? PowerModel::of(cfg.hardware, cfg.deployment, cfg.engine.power_cap_w) : PowerModel{};
    const double gpus = cfg.deployment.gpus();
    for (auto& replica : sim.pools()[static_cast<std::size_t>(p)]->replicas()) {
      const Replica* r = replica.get();
      replica->add_step_observer(
          [shared, r, p, energy, power, gpus](int i, Tick start_ns, const StepPlan& plan, const StepCost& cost) {
            StepSample s = sample_step(*r, p, i, start_ns, plan, cost);
            if (energy) s.above_idle_j = gpus * (power.step_power_w(cost) - power.idle_w) * PowerModel::kernel_s(cost);
            (*shared)(s);
          });
    }
  }
}

namespace {

ReplicaGauges gauges_of(const Replica& r) {
  return ReplicaGauges{r.kv().used_blocks(), r.kv().total_blocks(), r.num_waiting(), r.num_running()};
}

}  // namespace

void add_gauge_sampler(Simulation& sim, GaugeSampleFn fn) {
  auto shared = std::make_shared<GaugeSampleFn>(std::move(fn));
  for (int p = 0; p < static_cast<int>(sim.pools().size()); ++p) {
    for (auto& replica : sim.pools()[static_cast<std::size_t>(p)]->replicas()) {
      const Replica* r = replica.get();
      replica->add_state_observer([shared, r, p](int i, Tick now_ns) { (*shared)(p, i, now_ns, gauges_of(*r)); });
    }
  }
  for (int p = 0; p < static_cast<int>(sim.pools().size()); ++p) {
    const auto& replicas = sim.pools()[static_cast<std::size_t>(p)]->replicas();
    for (int i = 0; i < static_cast<int>(replicas.size()); ++i)
      (*shared)(p, i, 0, gauges_of(*replicas[static_cast<std::size_t>(i)]));
  }
}

std::vector<int> replicas_per_pool(const Simulation& sim) {
  std::vector<int> n;
  for (const auto& pool : sim.pools()) n.push_back(static_cast<int>(pool->replicas().size()));
  return n;
}

}  // namespace servesim
