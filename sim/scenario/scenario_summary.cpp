#include "sim/scenario/scenario_summary.h"

#include <sstream>

#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/scenario/distribution_parse.h"
#include "sim/scenario/prompt_parse.h"
#include "sim/scenario/vllm_bench_parse.h"
#include "sim/workload/benchmark/inference_perf_config.h"
#include "sim/scenario/workload_parse.h"
#include "sim/scenario/yaml_helpers.h"

namespace servesim {

namespace {

std::string describe_arrival(const ArrivalSpec& a) {
  const std::string process = arrival_process_name(a.process);
  if (a.process == ArrivalSpec::Process::closed) {
    std::string out = "closed loop of " + std::to_string(a.concurrency) + " users";
    if (a.think_time_s) {
      out += ", think " + describe_distribution(*a.think_time_s, DistUnit::seconds);
    }
    return out;
  }
  std::string out = process + " " + format_number(a.rate_per_s) + " req/s";
  if (!a.stages.empty()) {
    out = process + " in stages:";
    for (std::size_t i = 0; i < a.stages.size(); ++i)
      out += (i > 0 ? ", " : " ") + format_number(a.stages[i].rate_per_s) + " req/s for " +
             format_duration(ticks_from_seconds(a.stages[i].duration_s));
  }
  if (a.process == ArrivalSpec::Process::gamma) out += " (cv " + format_number(a.cv) + ")";
  return out;
}

std::string describe_slo(const SloSpec& slo) {
  std::string out;
  // The statistic only when it is not the default p99, so the common line stays short.
  auto add = [&out](const char* name, const std::optional<Tick>& v, const std::string& stat) {
    if (!v) return;
    out += (out.empty() ? "" : ", ") + std::string(name) + (stat == "p99" ? "" : " " + stat) + " " +
           format_duration(*v);
  };
  add("ttft", slo.ttft_ns, slo.ttft_stat);
  add("itl", slo.itl_ns, slo.itl_stat);
  add("tpot", slo.tpot_ns, slo.tpot_stat);
  add("e2el", slo.e2el_ns, slo.e2el_stat);
  return out;
}

std::string describe_class(const ClassSpec& c) {
  std::string out = c.name + ": ";
  if (c.trace && c.trace->vllm_bench_serve) {
    out += describe_vllm_bench_serve(*c.trace->vllm_bench_serve);
  } else if (c.trace && c.trace->format == "inference-perf-config") {
    out += "inference-perf config " + c.trace->path + ": " +
           describe_inference_perf_load(read_inference_perf_config(c.trace->path));
    if (c.trace->stage) out += "; stage " + std::to_string(*c.trace->stage) + " only";
  } else if (c.trace) {
    out += c.trace->format + " trace " + c.trace->path;
    if (c.trace->format != "lengths") out += " (speedup " + format_number(c.trace->speedup) + ")";
    if (c.arrival) out += "; arrival " + describe_arrival(*c.arrival);
  } else {
    std::string arrival = describe_arrival(*c.arrival);
    // With sessions an arrival starts a session; its turns follow completions.
    const std::size_t unit = arrival.find(" req/s");
    if (c.session && unit != std::string::npos) arrival.replace(unit, 6, " sessions/s");
    out += arrival;
  }
  if (c.input) out += "; input " + describe_distribution(*c.input, DistUnit::tokens);
  if (!c.prompt.empty()) out += "; prompt " + describe_prompt(c.prompt);
  if (c.session) out += "; sessions: " + describe_session(*c.session);
  if (c.output) out += "; output " + describe_distribution(*c.output, DistUnit::tokens);
  if (c.priority != 0) out += "; priority " + std::to_string(c.priority);
  const std::string slo = describe_slo(c.slo);
  if (!slo.empty()) out += "; slo " + slo;
  return out;
}


std::string describe_pool(const PoolConfig& p) {
  std::ostringstream out;
  const EngineConfig& e = p.engine;
  out << p.name << ": ";
  if (p.autoscale) {
    out << p.autoscale->min_replicas << ".." << p.autoscale->max_replicas << " (autoscale " << p.autoscale->policy << ")";
  } else {
    out << p.replicas;
  }
  out << " x " << p.model.name << " on " << p.hardware.name << " (tp " << p.deployment.tp << ", pp "
      << p.deployment.pp;
  // Shown only when set, so the common line stays as it was.
  if (p.deployment.ep > 1) out << ", ep " << p.deployment.ep;
  if (p.deployment.micro_batches > 0) out << ", " << p.deployment.micro_batches << " micro-batches";
  out << ", weights " << dtype_name(p.deployment.weights) << ", kv " << dtype_name(p.deployment.kv);
  if (p.deployment.activations != Dtype::bf16) out << ", activations " << dtype_name(p.deployment.activations);
  out << "; $" << format_number(p.hardware.price_per_gpu_hour * p.deployment.gpus()) << " per replica-hour)\n"
      << "      engine " << e.policy << ", max_num_seqs " << e.max_num_seqs
      << ", max_batched_tokens " << e.max_batched_tokens << ", block_size " << e.block_size
      << ", prefix_cache " << (e.prefix_cache ? "on" : "off");
  if (e.kv_cache_tokens) out << ", kv_cache_tokens " << *e.kv_cache_tokens;
  out << ", gpu_memory_utilization " << format_number(e.gpu_memory_utilization);
  if (!e.preset.empty()) out << " (preset " << e.preset << ")";
  if (e.async_scheduling) out << ", async scheduling";
  if (e.preemption_mode == PreemptionMode::swap) out << ", swap preemption";
  if (e.speculative.enabled) {
    out << "\n      speculative "
        << (e.speculative.draft_model ? "draft " + e.speculative.draft_model->name : std::string("ngram"))
        << ", k " << e.speculative.k << ", acceptance " << format_number(e.speculative.acceptance);
    // `auto` resolved off: say why the preset's async scheduling is not on the line above.
    if (e.async_scheduling_auto) out << "; without async scheduling, as vLLM runs this speculation";
  }
  // The request path outside the steps, when priced (docs/engine.md, "Front-end latency").
  const EngineOverheads& o = e.overheads;
  if (o.frontend_ns > 0 || o.frontend_per_prompt_token_ns > 0 || o.frontend_tokenizer_batch_wait_ns > 0 ||
      o.frontend_per_streamed_token_ns > 0) {
    out << "\n      front end " << format_number(static_cast<double>(o.frontend_ns) / 1e3) << " us + "
        << format_number(static_cast<double>(o.frontend_per_prompt_token_ns) / 1e3) << " us per prompt token";
    if (o.frontend_tokenizer_batch_wait_ns > 0)
      out << " + tokenizer batch window " << format_number(static_cast<double>(o.frontend_tokenizer_batch_wait_ns) / 1e6)
          << " ms";
    if (o.frontend_per_streamed_token_ns > 0)
      out << "; " << format_number(static_cast<double>(o.frontend_per_streamed_token_ns) / 1e3)
          << " us of API-server CPU per streamed token";
  }
  out << "\n"
      << "      cost model " << describe_cost_model(p.cost_model) << "; serves ";
  if (p.classes.empty()) {
    out << "every class";
  } else {
    for (std::size_t i = 0; i < p.classes.size(); ++i) out << (i ? ", " : "") << p.classes[i];
  }
  // Which rule chose the cost model: a user who calibrated a profile sees that the fit is used.
  out << "\n      cost model chosen: " << (p.cost_model.why.empty() ? "named in the scenario" : p.cost_model.why);
  return out.str();
}

}  // namespace

std::string describe_cost_model(const CostModelSpec& m) {
  if (m.kind == "constant") return "constant " + format_duration(m.constant_step_ns) + " per step";
  if (m.kind == "linear") {
    return "linear " + format_duration(m.linear_base_ns) + " + " +
           format_number(m.linear_per_token_ns) + "ns per token";
  }
  if (m.kind == "table") return "table " + m.table_path;
  if (m.kind == "kernels" && m.kernel_tables) {
    std::string out = "kernels (" + m.kernel_tables->set_name + " tables";
    if (m.cuda_graph_max_batch > 0) out += "; CUDA graphs up to " + std::to_string(m.cuda_graph_max_batch) + " sequences";
    if (!m.kernel_set_note.empty()) out += "; " + m.kernel_set_note;
    return out + ")";
  }
  return m.kind;
}

std::string format_duration(Tick ns) {
  struct Unit {
    Tick ns;
    const char* name;
  };
  static const Unit kUnits[] = {{3600 * kNsPerSec, "h"}, {60 * kNsPerSec, "m"}, {kNsPerSec, "s"},
                                {kNsPerMs, "ms"},        {kNsPerUs, "us"},      {1, "ns"}};
  for (const Unit& u : kUnits) {
    if (ns >= u.ns) {
      return format_number(static_cast<double>(ns) / static_cast<double>(u.ns)) + u.name;
    }
  }
  return "0s";
}

std::string describe_workload_class(const ClassSpec& spec) { return describe_class(spec); }

std::string describe_scenario(const Scenario& s) {
  std::ostringstream out;
  out << "scenario " << s.name << " (" << s.source_file << ")\n"
      << "  seed " << s.seed << "; stop ";
  if (!s.stop.requests && !s.stop.time_ns) out << "when every source is exhausted";
  if (s.stop.requests) out << "after " << *s.stop.requests << " requests";
  if (s.stop.requests && s.stop.time_ns) out << " or ";
  if (s.stop.time_ns) out << "at " << format_duration(*s.stop.time_ns) << " simulated";
  const WarmupSpec& w = s.stop.warmup;
  if (w.any()) {
    out << "; warm-up (left out of the summaries): ";
    if (w.requests) out << "the first " << *w.requests << " requests";
    if (w.requests && w.time_ns) out << " and ";
    if (w.time_ns) out << "arrivals before " << format_duration(*w.time_ns);
  }
  out << "\n  workload: " << s.workload.size()
      << (s.workload.size() == 1 ? " class\n" : " classes\n");
  for (const ClassSpec& c : s.workload) out << "    " << describe_class(c) << "\n";
  // An autoscaled pool counts from its floor to its ceiling (`replicas` is its ceiling).
  int replicas = 0, least_replicas = 0;
  for (const PoolConfig& p : s.cluster.pools) {
    replicas += p.replicas;
    least_replicas += p.autoscale ? p.autoscale->min_replicas : p.replicas;
  }
  out << "  cluster: " << s.cluster.pools.size() << (s.cluster.pools.size() == 1 ? " pool" : " pools") << ", ";
  if (least_replicas != replicas) out << least_replicas << " to ";
  out << replicas << (replicas == 1 ? " replica" : " replicas") << ", router " << s.cluster.router << "\n";
  for (const PoolConfig& p : s.cluster.pools) out << "    " << describe_pool(p) << "\n";
  out << "  outputs: requests_csv " << (s.outputs.requests_csv ? "on" : "off") << ", chrome_trace "
      << (s.outputs.chrome_trace ? "on" : "off") << ", html " << (s.outputs.html ? "on" : "off") << ", timeseries ";
  if (s.outputs.timeseries) {
    out << "every " << static_cast<double>(s.outputs.timeseries_interval_ns) * 1e-9 << " s";
  } else {
    out << "off";
  }
  out << "\n";
  return out.str();
}

}  // namespace servesim
