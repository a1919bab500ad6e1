#include "sim/metrics/energy_meter.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/engine/request_state.h"

namespace servesim {

namespace {

constexpr double kJoulesPerKwh = 3.6e6;  // 1 kWh = 1000 W x 3600 s

}  // namespace

EnergyMeter::EnergyMeter(std::vector<EnergyPool> pools, int classes)
    : classes_(static_cast<std::size_t>(std::max(classes, 0))) {
  for (EnergyPool& p : pools) {
    PoolState s;
    s.spec = p;
    const auto n = static_cast<std::size_t>(p.replicas);
    s.starting_since_ns.assign(n, -1);
    s.on.assign(n, false);
    for (std::size_t r = 0; r < n && static_cast<int>(r) < p.initially_on; ++r) s.on[r] = true;
    s.last_kernel_end_ns.assign(n, 0);
    s.last_above_w.assign(n, 0.0);
    s.power_w = static_cast<double>(std::min(p.initially_on, p.replicas)) * p.gpus_per_replica * p.power.idle_w;
    s.peak_w = s.power_w;
    fleet_power_w_ += s.power_w;
    pools_.push_back(std::move(s));
  }
  fleet_peak_w_ = fleet_power_w_;
}

void EnergyMeter::settle(Tick now_ns) {
  while (!drops_.empty() && drops_.top().when_ns <= now_ns) {
    const Drop d = drops_.top();
    drops_.pop();
    pools_[static_cast<std::size_t>(d.pool)].power_w -= d.watts;
    fleet_power_w_ -= d.watts;
  }
}

void EnergyMeter::note_peaks() {
  for (PoolState& p : pools_) p.peak_w = std::max(p.peak_w, p.power_w);
  fleet_peak_w_ = std::max(fleet_peak_w_, fleet_power_w_);
}

void EnergyMeter::on_step(int pool, int replica, Tick start_ns, const StepPlan& plan, const StepCost& cost) {
  SS_ASSERT(plan.lazy_decodes == 0, "the energy meter sees every request of a step");
  settle(start_ns);
  PoolState& p = pools_[static_cast<std::size_t>(pool)];
  const PowerModel& m = p.spec.power;
  const double gpus = p.spec.gpus_per_replica;
  const double kernel_s = PowerModel::kernel_s(cost);
  const double above_w = gpus * (m.step_power_w(cost) - m.idle_w);
  p.above_idle_j += above_w * kernel_s;
  const auto kernel_ns = static_cast<Tick>(kernel_s * 1e9);
  p.last_kernel_end_ns[static_cast<std::size_t>(replica)] = start_ns + kernel_ns;
  p.last_above_w[static_cast<std::size_t>(replica)] = above_w;
  if (above_w > 0) {
    p.power_w += above_w;
    fleet_power_w_ += above_w;
    note_peaks();
    drops_.push(Drop{start_ns + kernel_ns, pool, above_w});
  }
  // The step's whole energy, shared by its tokens: its kernel time above idle and every
  // GPU's idle power over the step's whole time (CPU overheads, swaps included).
  const double step_j = above_w * kernel_s + gpus * m.idle_w * static_cast<double>(cost.total_ns) * 1e-9;
  std::int64_t tokens = 0;
  for (const ScheduledChunk& c : plan.chunks) tokens += c.num_tokens;
  if (tokens <= 0) return;
  const double per_token_j = step_j / static_cast<double>(tokens);
  for (const ScheduledChunk& c : plan.chunks) {
    const RequestState& r = *c.request;
    const auto k = static_cast<std::size_t>(r.spec.class_index);
    if (k >= classes_.size()) continue;
    // The split timeseries.csv and the batch shape use: a prompt chunk or a multi-token
    // recompute is prefill work, a one-token chunk past the prompt a decode.
    const double j = per_token_j * static_cast<double>(c.num_tokens);
    if (r.in_prefill() || c.num_tokens > 1) {
      classes_[k].input_j += j;
    } else {
      classes_[k].output_j += j;
    }
  }
}

void EnergyMeter::on_phase(int pool, int replica, Tick now_ns, bool on, bool starting) {
  settle(now_ns);
  PoolState& p = pools_[static_cast<std::size_t>(pool)];
  const auto r = static_cast<std::size_t>(replica);
  const double gpus = p.spec.gpus_per_replica;
  double delta_w = 0;
  if (p.starting_since_ns[r] >= 0) {  // a start ends (ready, or turned off while starting)
    p.starting_j += gpus * p.spec.start_extra_w * static_cast<double>(now_ns - p.starting_since_ns[r]) * 1e-9;
    p.starting_since_ns[r] = -1;
    delta_w -= gpus * p.spec.start_extra_w;
  }
  if (on != p.on[r]) delta_w += (on ? 1.0 : -1.0) * gpus * p.spec.power.idle_w;
  p.on[r] = on;
  if (on && starting) {
    p.starting_since_ns[r] = now_ns;
    delta_w += gpus * p.spec.start_extra_w;
  }
  p.power_w += delta_w;
  fleet_power_w_ += delta_w;
  note_peaks();
}

void EnergyMeter::write(RunSummary& summary, const std::vector<double>& paid_gpu_s, Tick end_ns, double price_per_kwh) {
  SS_ASSERT(paid_gpu_s.size() == pools_.size() && summary.pools.size() == pools_.size(), "one paid time per pool");
  const double end_s = static_cast<double>(end_ns) * 1e-9;
  double all_j = 0;
  auto group = [&](double j, double mean_w, double peak_w) {
    FieldGroup g;
    g.name = "energy";
    g.set("energy_j", j);
    g.set("energy_kwh", j / kJoulesPerKwh);
    g.set("mean_power_w", mean_w);
    g.set("peak_power_w", peak_w);
    if (price_per_kwh > 0) g.set("energy_cost_usd", j / kJoulesPerKwh * price_per_kwh);
    return g;
  };
  for (std::size_t i = 0; i < pools_.size(); ++i) {
    const PoolState& p = pools_[i];
    double above_j = p.above_idle_j;
    for (std::size_t r = 0; r < p.last_kernel_end_ns.size(); ++r)
      if (p.last_kernel_end_ns[r] > end_ns)
        above_j -= p.last_above_w[r] * static_cast<double>(p.last_kernel_end_ns[r] - end_ns) * 1e-9;
    double starting_j = p.starting_j;
    for (Tick since : p.starting_since_ns)
      if (since >= 0 && since < end_ns)
        starting_j += p.spec.gpus_per_replica * p.spec.start_extra_w * static_cast<double>(end_ns - since) * 1e-9;
    const double idle_j = paid_gpu_s[i] * p.spec.power.idle_w;
    const double j = idle_j + above_j + starting_j;
    all_j += j;
    SummaryBlock& b = summary.pools[i].second;
    FieldGroup g = group(j, end_s > 0 ? j / end_s : 0, p.peak_w);
    g.set("idle_energy_j", idle_j);
    g.set("step_energy_above_idle_j", above_j);
    g.set("starting_energy_above_idle_j", starting_j);
    const double out = b.get("total_output_tokens");
    if (out > 0) g.set("energy_per_output_token_j", j / out);
    b.objects.push_back(std::move(g));
  }
  FieldGroup g = group(all_j, end_s > 0 ? all_j / end_s : 0, fleet_peak_w_);
  const double out = summary.overall.get("total_output_tokens");
  if (out > 0) g.set("energy_per_output_token_j", all_j / out);
  summary.overall.objects.push_back(std::move(g));
  for (std::size_t k = 0; k < summary.classes.size() && k < classes_.size(); ++k) {
    SummaryBlock& b = summary.classes[k].second;
    FieldGroup c;
    c.name = "energy";
    c.set("prefill_energy_j", classes_[k].input_j);
    c.set("decode_energy_j", classes_[k].output_j);
    const double in_tokens = b.get("total_input_tokens");
    const double out_tokens = b.get("total_output_tokens");
    if (in_tokens > 0) c.set("prefill_energy_per_input_token_j", classes_[k].input_j / in_tokens);
    if (out_tokens > 0) c.set("decode_energy_per_output_token_j", classes_[k].output_j / out_tokens);
    b.objects.push_back(std::move(c));
  }
}

}  // namespace servesim
