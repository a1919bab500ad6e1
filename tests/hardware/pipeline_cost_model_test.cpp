// Pipeline micro-batching over a stage model whose times are easy to add by hand: the
// linear model (1 ms + 0.1 ms per token computed).
#include <catch2/catch.hpp>

#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/cli/subcommands.h"
#include "sim/hardware/pipeline_cost_model.h"
#include "sim/hardware/simple_cost_models.h"

namespace pipeline_cost_model_test {

using namespace servesim;

namespace {

BatchShape decodes(std::int64_t seqs, std::int64_t context_each) {
  BatchShape b;
  b.decode_seqs = seqs;
  b.decode_context_sum = seqs * context_each;
  return b;
}

double ms(const PipelineCostModel& model, const BatchShape& b) {
  return static_cast<double>(model.step_cost(b).total_ns) / 1e6;
}

PipelineCostModel pipeline(int pp, int m) {
  return PipelineCostModel(std::make_unique<LinearCostModel>(1'000'000, 100'000.0), pp, m);
}

}  // namespace

TEST_CASE("pipeline: a step of m micro-batches over pp stages lasts m plus pp minus 1 stage times", "[hardware][pipeline]") {
  // 8 decodes, pp = 4. m = 4: four micro-batches of 2 tokens at 1.2 ms each:
  // 4 x 1.2 + 3 x 1.2 = 8.4 ms, of which the bubble 3.6 ms = 3/7.
  const PipelineCostModel four = pipeline(4, 4);
  CHECK(ms(four, decodes(8, 100)) == Approx(8.4).epsilon(1e-12));
  // m = 1: the whole batch crosses the 4 stages in turn: 4 x 1.8 = 7.2 ms.
  CHECK(ms(pipeline(4, 1), decodes(8, 100)) == Approx(7.2).epsilon(1e-12));
  // m = 8: 8 x 1.1 + 3 x 1.1 = 12.1 ms (the per-micro-batch base cost dominates).
  CHECK(ms(pipeline(4, 8), decodes(8, 100)) == Approx(12.1).epsilon(1e-12));
  // More micro-batches than sequences: only 8 exist, so m = 16 prices as m = 8.
  CHECK(ms(pipeline(4, 16), decodes(8, 100)) == Approx(12.1).epsilon(1e-12));
  // Unequal micro-batches: a 1000-token chunk and 4 decodes, m = 2 -> {2 decodes + chunk
  // = 1002 tokens: 101.2 ms} and {2 decodes: 1.2 ms}; 102.4 + 3 x 101.2 = 406.0 ms.
  BatchShape mixed = decodes(4, 10);
  mixed.prefills.push_back({1000, 0, true});
  CHECK(ms(pipeline(4, 2), mixed) == Approx(406.0).epsilon(1e-12));
}

TEST_CASE("pipeline: the bubble is overhead and the breakdown adds up to the step", "[hardware][pipeline]") {
  const PipelineCostModel four = pipeline(4, 4);
  const StepCost c = four.step_cost(decodes(8, 100));
  // Linear model: 1 ms base is overhead, the token part compute; bubble 3 x 1.2 ms.
  CHECK(c.overhead_ns == 4 * 1'000'000 + 3 * 1'200'000);
  CHECK(c.compute_ns == 8 * 100'000);
  CHECK(c.total_ns == c.overhead_ns + c.compute_ns);
}

TEST_CASE("pipeline: micro-batches split decodes evenly and put each chunk on the lightest", "[hardware][pipeline]") {
  BatchShape b = decodes(5, 100);
  b.decode_context_sum = 503;
  b.prefills.push_back({1000, 0, true});
  b.prefills.push_back({10, 0, true});
  b.prefills.push_back({10, 5, false});
  const auto parts = split_micro_batches(b, 2);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].decode_seqs == 3);
  CHECK(parts[1].decode_seqs == 2);
  // 503 / 5 = 100 per sequence; the 3 left over go to the first.
  CHECK(parts[0].decode_context_sum == 303);
  CHECK(parts[1].decode_context_sum == 200);
  // Tokens so far 3 and 2: the 1000-token chunk goes to the second (2), then both
  // 10-token chunks to the first (3, then 13).
  REQUIRE(parts[1].prefills.size() == 1);
  CHECK(parts[1].prefills[0].new_tokens == 1000);
  REQUIRE(parts[0].prefills.size() == 2);
  CHECK(parts[0].prefills[1].past_tokens == 5);
  CHECK(split_micro_batches(decodes(3, 1), 8).size() == 3);
}

TEST_CASE("pipeline: servesim step with micro-batches reports the bubble", "[hardware][pipeline][step]") {
  const auto run = [](const std::string& m) {
    std::ostringstream out, err;
    REQUIRE(cli::run_subcommand("step", {"--model", "llama-3-70b", "--hardware", "h100-sxm", "--tp", "2", "--pp", "4",
                               "--micro-batches", m, "--decode", "64:2048", "--json"},
                              out, err) == 0);
    return nlohmann::json::parse(out.str());
  };
  const auto steady = run("0");
  const auto four = run("4");
  double bubble_ms = -1, sum_ms = 0;
  for (const auto& op : four["ops"]) {
    sum_ms += op["ms"].get<double>();
    if (op["name"] == "pp_bubble") bubble_ms = op["ms"].get<double>();
  }
  CHECK(sum_ms == Approx(four["ms"].get<double>()).epsilon(1e-6));
  // Four equal micro-batches of 16 decodes: the bubble is 3 of the 7 stage times.
  CHECK(bubble_ms == Approx(four["ms"].get<double>() * 3.0 / 7.0).epsilon(1e-6));
  // Each micro-batch re-reads the stage's weights: 4 + 3 of them cost far more than the
  // one-stage steady-state step, which has no bubble entry.
  CHECK(four["ms"].get<double>() > 4 * steady["ms"].get<double>());
  for (const auto& op : steady["ops"]) CHECK(op["name"] != "pp_bubble");
}

}  // namespace pipeline_cost_model_test
