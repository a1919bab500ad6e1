// Runs that cannot finish well must still end, in bounded time and memory, and say why:
// stop.time always ends a run, overload is reported as saturated with its backlog, a run
// that could never end is refused, and an unsorted trace is rejected with file:line.
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "sim/cluster/simulation.h"
#include "sim/scenario/model_loader.h"

namespace robustness_test {

using namespace servesim;
using namespace servesim::testing;

namespace {

// Like run_cli, but killed after `limit_s` seconds (exit 124), so a regression that hangs
// fails the test instead of stalling the suite.
CliResult run_cli_bounded(const std::string& arguments, int limit_s = 120) {
  const std::string command = std::string("cd '") + SERVESIM_SOURCE_DIR + "' && timeout " +
                              std::to_string(limit_s) + " '" + SERVESIM_BINARY + "' " + arguments + " 2>&1";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe)) result.output += buf.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// One server, one sequence at a time, every step 10 ms, one output token: each request is
// one 10 ms step, so the replica serves exactly 100 requests per second.
Simulation hundred_per_second_server(double rate_per_s, std::int64_t requests) {
  PoolConfig pool;
  pool.model = load_model("llama-3-8b");
  pool.hardware = load_hardware("h100-sxm");
  pool.engine.policy = "continuous";
  pool.engine.max_num_seqs = 1;
  pool.cost_model.kind = "constant";
  pool.cost_model.constant_step_ns = 10 * kNsPerMs;
  ClusterConfig cluster;
  cluster.pools.push_back(pool);
  ClassSpec c;
  c.arrival = ArrivalSpec{};
  c.arrival->rate_per_s = rate_per_s;
  c.input = DistSpec{};
  c.input->a = 100;  // fixed
  c.output = DistSpec{};
  c.output->a = 1;
  StopSpec stop;
  stop.requests = requests;
  return Simulation(17, stop, {c}, cluster);
}

const char* kOverloaded = R"(name: overloaded
stop: {requests: 5000}
workload:
  - arrival: {process: poisson, rate: 1000}
    input: {fixed: 100}
    output: {fixed: 1}
cluster:
  pools:
    - name: main
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: continuous, max_num_seqs: 1}
      cost_model: {constant: {step: 10ms}}
)";

}  // namespace

TEST_CASE("robustness: arrivals at 10x capacity drain in bounded time and are reported saturated", "[reliability]") {
  const auto wall_start = std::chrono::steady_clock::now();
  Simulation sim = hundred_per_second_server(1000, 5000);
  const RunResult r = sim.run();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  CHECK(r.completed == 5000);
  CHECK(wall_s < 60);
  // Once the first request arrives the server is never idle again (the queue only grows
  // while arrivals last), so the run lasts exactly 5000 steps of 10 ms.
  CHECK(r.summary.overall.get("duration") == Approx(50.0).epsilon(1e-12));
  // Arrivals span about 5000 / 1000 = 5 s (sd 0.07 s), in which about 500 requests finish:
  // about 4500 are inside at the last arrival.
  CHECK(r.backlog > 4400);
  CHECK(r.backlog < 4600);
  CHECK(r.peak_in_flight >= r.backlog);
  CHECK(r.peak_in_flight <= 5000);
  CHECK(r.saturation.saturated);
  CHECK(r.summary.overall.get("saturated") == 1);
  CHECK(r.summary.overall.get("backlog") == double(r.backlog));
}

TEST_CASE("robustness: a stable queue is not reported saturated", "[reliability]") {
  // rho = 0.5: the M/D/1 queue holds rho + rho^2 / (2 (1 - rho)) = 0.75 requests on average.
  Simulation sim = hundred_per_second_server(50, 5000);
  const RunResult r = sim.run();
  CHECK(r.completed == 5000);
  CHECK_FALSE(r.saturation.saturated);
  CHECK(r.backlog < 20);
  CHECK(r.summary.overall.get("saturated") == 0);
}

TEST_CASE("robustness: the CLI reports an overloaded run as saturated", "[reliability]") {
  TempDir dir("overload");
  const auto scenario = dir.write("overloaded.yaml", kOverloaded);
  const auto r = run_cli_bounded("run " + scenario.string() + " --out " + dir.path.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("saturated: arrivals outpaced the cluster") != std::string::npos);
  const auto j = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  CHECK(j["completed"].get<long>() == 5000);
  CHECK(j["saturated"].get<long>() == 1);
  CHECK(j["backlog"].get<long>() > 4400);
}

TEST_CASE("robustness: stop.time ends a run whose arrivals never run out", "[reliability]") {
  TempDir dir("stoptime");
  std::string text = kOverloaded;
  text.replace(text.find("stop: {requests: 5000}"), 22, "stop: {time: 20s}");
  const auto scenario = dir.write("endless.yaml", text);
  const auto r = run_cli_bounded("run " + scenario.string() + " --quiet --out " + dir.path.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  // One 10 ms step per request: at most 2000 finish in 20 s; about 20000 arrive.
  CHECK(j["completed"].get<long>() <= 2000);
  CHECK(j["completed"].get<long>() >= 1990);
  CHECK(j["unfinished"].get<long>() > 15000);
  CHECK(j["saturated"].get<long>() == 1);
  CHECK(j["duration"].get<double>() <= 20.0);
  CHECK(j["duration"].get<double>() > 19.9);
}

TEST_CASE("robustness: synthetic arrivals with no stop are refused instead of running forever", "[reliability]") {
  TempDir dir("nostop");
  std::string text = kOverloaded;
  text.replace(text.find("stop: {requests: 5000}"), 22, "");
  const auto scenario = dir.write("forever.yaml", text);
  const auto r = run_cli_bounded("run " + scenario.string() + " --out " + (dir.path / "out").string(), 60);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("forever.yaml") != std::string::npos);
  CHECK(r.output.find("stop") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "out" / "summary.json"));
}

TEST_CASE("robustness: a trace with unsorted timestamps exits 2 naming file:line and column", "[reliability]") {
  TempDir dir("unsorted");
  struct Case {
    const char* format;
    const char* csv;
    const char* column;
  };
  const Case cases[] = {
      {"azure",
       "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,374,44\n"
       "2023-11-16 18:15:50.0,396,109\n2023-11-16 18:15:48.0,10,1\n",
       "TIMESTAMP"},
      {"vidur", "arrived_at,num_prefill_tokens,num_decode_tokens\n0.5,100,20\n1.5,100,20\n1.0,100,20\n", "arrived_at"},
  };
  for (const Case& c : cases) {
    const auto trace = dir.write(std::string(c.format) + ".csv", c.csv);
    const auto scenario = dir.write(std::string(c.format) + ".yaml",
                                    "name: unsorted\nworkload:\n  - trace: {format: " + std::string(c.format) +
                                        ", path: " + trace.string() +
                                        "}\ncluster: {pools: [{name: main, model: llama-3-8b, hardware: h100-sxm}]}\n");
    const auto out = dir.path / (std::string(c.format) + "-out");
    const auto r = run_cli_bounded("run " + scenario.string() + " --out " + out.string(), 60);
    INFO(c.format << ": " << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(trace.string() + ":4:1:") != std::string::npos);  // the 4th line, 1st column
    CHECK(r.output.find(c.column) != std::string::npos);
    CHECK(r.output.find("arrival order") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out / "summary.json"));
    CHECK_FALSE(std::filesystem::exists(out / "requests.csv"));
  }
}

}  // namespace robustness_test
