// The simulator against queueing theory. With one sequence at a time and one output token,
// a replica is a single FIFO server whose service time is one prefill step, so the mean
// TTFT must equal the Pollaczek-Khinchine sojourn time W = E[S] + lambda E[S^2] / (2(1 - rho)).
#include <catch2/catch.hpp>
#include <cmath>

#include "sim/cluster/simulation.h"
#include "sim/scenario/model_loader.h"
#include "workload/workload_test_util.h"

namespace queueing_test {

using namespace servesim;

namespace {

PoolConfig single_server_pool(CostModelSpec cost) {
  PoolConfig pool;
  pool.name = "main";
  pool.model = load_model("llama-3-8b");
  pool.hardware = load_hardware("h100-sxm");
  pool.engine.policy = "continuous";
  pool.engine.max_num_seqs = 1;
  pool.engine.max_batched_tokens = 1'000'000;  // never splits a prompt
  pool.engine.kv_cache_tokens = 10'000'000;
  pool.model.max_context_tokens = 0;           // no context limit for the synthetic lengths
  pool.cost_model = cost;
  return pool;
}

using servesim::testing::dist;

ClassSpec poisson_class(double rate_per_s, DistSpec input) {
  ClassSpec c;
  c.arrival = ArrivalSpec{};
  c.arrival->process = ArrivalSpec::Process::poisson;
  c.arrival->rate_per_s = rate_per_s;
  c.input = input;
  c.output = dist(DistSpec::Kind::fixed, 1);
  return c;
}

double mean_ttft_ms(const ClassSpec& cls, const PoolConfig& pool, std::int64_t requests, std::uint64_t seed) {
  ClusterConfig cluster;
  cluster.pools.push_back(pool);
  StopSpec stop;
  stop.requests = requests;
  Simulation sim(seed, stop, {cls}, cluster);
  const RunResult r = sim.run();
  REQUIRE(r.completed == requests);
  REQUIRE(r.rejected == 0);
  return r.summary.overall.get("mean_ttft_ms");
}

}  // namespace

TEST_CASE("queueing: constant service and Poisson arrivals give the M/D/1 mean TTFT", "[queueing]") {
  CostModelSpec cost;
  cost.kind = "constant";
  cost.constant_step_ns = 10 * kNsPerMs;  // S = 10 ms
  const double s_ms = 10.0;
  for (double rho : {0.5, 0.8}) {
    const double lambda = rho / (s_ms / 1000.0);
    const double expected = s_ms + rho * s_ms / (2.0 * (1.0 - rho));  // 15 ms and 30 ms
    const double got = mean_ttft_ms(poisson_class(lambda, dist(DistSpec::Kind::fixed, 100)),
                                    single_server_pool(cost), rho < 0.6 ? 200'000 : 600'000, 11);
    INFO("rho " << rho << " expected " << expected << " ms, simulated " << got << " ms");
    CHECK(std::abs(got - expected) / expected < 0.02);
  }
}

TEST_CASE("queueing: service linear in exponential prompt lengths gives the M/M/1 mean TTFT", "[queueing]") {
  CostModelSpec cost;
  cost.kind = "linear";
  cost.linear_per_token_ns = 10'000;  // 10 us per token: mean prompt 1000 -> E[S] = 10 ms
  const DistSpec input = dist(DistSpec::Kind::exponential, 1000);
  // Rounding an Exp(1000) length to whole tokens (at least 1) moves E[S] by < 0.01%.
  for (double rho : {0.5, 0.7}) {
    const double lambda = rho / 0.010;
    const double expected = 10.0 / (1.0 - rho);  // 20 ms and 33.3 ms
    const double got = mean_ttft_ms(poisson_class(lambda, input), single_server_pool(cost), 600'000, 5);
    INFO("rho " << rho << " expected " << expected << " ms, simulated " << got << " ms");
    CHECK(std::abs(got - expected) / expected < 0.02);
  }
}

TEST_CASE("queueing: lognormal prompt lengths give the M/G/1 (Pollaczek-Khinchine) mean TTFT", "[queueing]") {
  CostModelSpec cost;
  cost.kind = "linear";
  cost.linear_base_ns = 2 * kNsPerMs;
  cost.linear_per_token_ns = 5'000;  // S = 2 ms + 5 us * L
  const double median = 1000, sigma = 0.6;
  const DistSpec input = dist(DistSpec::Kind::lognormal, median, sigma);
  const double el = median * std::exp(sigma * sigma / 2), el2 = median * median * std::exp(2 * sigma * sigma);
  const double es = 2.0 + 0.005 * el;                           // ms
  const double es2 = 4.0 + 2 * 2.0 * 0.005 * el + 0.005 * 0.005 * el2;  // ms^2
  const double rho = 0.7;
  const double lambda_per_ms = rho / es;
  const double expected = es + lambda_per_ms * es2 / (2 * (1 - rho));
  const double got = mean_ttft_ms(poisson_class(lambda_per_ms * 1000.0, input), single_server_pool(cost), 600'000, 3);
  INFO("expected " << expected << " ms, simulated " << got << " ms");
  CHECK(std::abs(got - expected) / expected < 0.02);
}

}  // namespace queueing_test
