// How fast does servesim simulate? Runs bench/throughput.yaml (prefix cache on) for N
// requests on R replicas and prints wall time, simulated requests per wall second, engine
// steps and peak memory (docs/performance.md).
//   usage: sim_throughput [REQUESTS] [REPLICAS] [--no-prefix-cache] [--rate PER_REPLICA]
//                         [--summary FILE] [--set KEY=VALUE]...
// --rate sets the Poisson arrival rate per replica (default 4 req/s, a light load at which
// each request sees about 26 engine steps; 16 is a busy one, about 5).
// --summary writes the run's summary.json, so a speed-up can be checked byte for byte
// against the figures it must not change. --set changes the scenario further (say
// 'workload.0.output={fixed: 1}' to time the per-request work alone).
#include <sys/resource.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "servesim/servesim.h"

int main(int argc, char** argv) {
  long requests = 100000;
  int replicas = 16;
  bool prefix = true;
  double rate_per_replica = 4.0;
  std::string summary_path;
  std::vector<std::string> extra_sets;  // after the program's own: a variant of the workload
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-prefix-cache") {
      prefix = false;
    } else if (a == "--prefix-cache") {
      prefix = true;  // the default; kept so older command lines still work
    } else if (a == "--rate" && i + 1 < argc) {
      rate_per_replica = std::atof(argv[++i]);
    } else if (a == "--summary" && i + 1 < argc) {
      summary_path = argv[++i];
    } else if (a == "--set" && i + 1 < argc) {
      extra_sets.push_back(argv[++i]);
    } else if (positional == 0) {
      requests = std::atol(a.c_str());
      ++positional;
    } else if (positional == 1) {
      replicas = std::atoi(a.c_str());
      ++positional;
    } else {
      std::fprintf(stderr, "usage: sim_throughput [REQUESTS] [REPLICAS] [--no-prefix-cache] [--rate PER_REPLICA] [--summary FILE] [--set KEY=VALUE]...\n");
      return 2;
    }
  }
  if (requests < 1 || replicas < 1 || !(rate_per_replica > 0)) {
    std::fprintf(stderr, "sim_throughput: REQUESTS and REPLICAS must be at least 1, --rate positive\n");
    return 2;
  }
  const std::string path = std::string(SERVESIM_SOURCE_DIR_BENCH) + "/bench/throughput.yaml";
  const std::vector<std::string> sets = {
      "stop.requests=" + std::to_string(requests),
      "cluster.pools.0.replicas=" + std::to_string(replicas),
      "workload.0.arrival.rate=" + std::to_string(rate_per_replica * replicas),
      std::string("cluster.pools.0.engine.prefix_cache=") + (prefix ? "true" : "false"),
  };
  std::vector<std::string> all_sets = sets;
  all_sets.insert(all_sets.end(), extra_sets.begin(), extra_sets.end());
  try {
    const servesim::ScenarioFile s = servesim::ScenarioFile::load(path, all_sets);
    // Wall time, and the process's CPU time (the metrics' worker thread's too, where a long
    // run starts one): on a shared machine the second is the steadier.
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const servesim::RunOutcome outcome = servesim::run_scenario(s);
    const servesim::RunResult& r = outcome.result;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf(
        "requests %ld  replicas %d  rate %.1f/replica  prefix_cache %s  wall %.3f s  cpu %.3f s  %.0f req/s  %.2f us/req  steps %lld  "
        "%.1f steps/req  %.1f ns/step  events %llu  peak RSS %.1f MB  simulated %.1f s  ttft p50 %.1f ms  "
        "itl p50 %.2f ms  hit rate %.4f\n",
        requests, replicas, rate_per_replica, prefix ? "on" : "off", wall, cpu, requests / wall, 1e6 * wall / requests,
        static_cast<long long>(r.steps), static_cast<double>(r.steps) / requests,
        r.steps > 0 ? 1e9 * wall / static_cast<double>(r.steps) : 0.0,
        static_cast<unsigned long long>(r.events), ru.ru_maxrss / 1024.0, servesim::seconds_from_ticks(r.end_ns),
        r.summary.overall.get("median_ttft_ms"), r.summary.overall.get("median_itl_ms"),
        r.summary.overall.get("prefix_cache_hit_rate"));
    // How the steps ran: decode tokens advanced as a count (lazy decodes), and steps run
    // inside quiet stretches of one event each (decode runs), with the priced steps that
    // a submit cut off.
    const long long lazy = outcome.engine.lazy_decode_tokens, runs = outcome.engine.decode_runs,
                    run_steps = outcome.engine.decode_run_steps, priced = outcome.engine.decode_run_priced_steps;
    long long decode_tokens = 0;
    decode_tokens = static_cast<long long>(r.summary.overall.get("total_output_tokens")) - r.completed;
    std::printf("  lazy decode tokens %.1f%% of decode tokens, decode runs %lld: %.1f steps each, %.1f%% of steps; "
                "priced steps cut off %.1f%%\n",
                decode_tokens > 0 ? 100.0 * lazy / decode_tokens : 0.0, runs, runs > 0 ? double(run_steps) / runs : 0.0,
                r.steps > 0 ? 100.0 * run_steps / r.steps : 0.0, priced > 0 ? 100.0 * (priced - run_steps) / priced : 0.0);
    if (!summary_path.empty()) {
      std::ofstream f(summary_path);
      servesim::write_summary_json(r.summary, f);
      if (!f) {
        std::fprintf(stderr, "sim_throughput: cannot write %s\n", summary_path.c_str());
        return 2;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_throughput: %s\n", e.what());
    return 2;
  }
  return 0;
}
