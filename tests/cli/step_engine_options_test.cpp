// `servesim step`'s options that only the measured kernel tables use (--engine,
// --engine-version, --cuda-graphs) and --micro-batches: none of them is taken and then left
// without effect unsaid.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cli/subcommands.h"

namespace step_engine_options_test {

using servesim::cli::run_subcommand;

namespace {

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome step(std::vector<std::string> extra) {
  std::vector<std::string> args = {"--model", "llama-3-8b", "--hardware", "h100-sxm", "--decode", "8:1024", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::ostringstream out, err;
  const int code = run_subcommand("step", args, out, err);
  return {code, out.str(), err.str()};
}

double ms(const Outcome& r) { return nlohmann::json::parse(r.out)["ms"].get<double>(); }

}  // namespace

TEST_CASE("step: an --engine-version without tables of its own is priced by the nearest and says which", "[step]") {
  const Outcome asked = step({"--engine-version", "0.1"});
  INFO(asked.err);
  REQUIRE(asked.code == 0);
  // data/kernels/h100_sxm has vllm-0.14.0 and vllm-0.24.0: 0.1 is older than both.
  CHECK(asked.err.find("warning: vllm 0.1 has no tables of its own; using 0.14.0, the oldest measured") !=
        std::string::npos);
  const Outcome measured = step({"--engine-version", "0.14.0"});
  REQUIRE(measured.code == 0);
  CHECK(measured.err.empty());
  CHECK(ms(asked) == ms(measured));  // the same tables, so the same step
  // Between two measured releases: the newest before it.
  CHECK(step({"--engine-version", "0.20.0"}).err.find("using 0.14.0, the newest measured before it") != std::string::npos);
  // Without engine options the default is silent.
  CHECK(step({}).err.empty());
}

TEST_CASE("step: engine options with the roofline or a table are refused - a fallback to the roofline is said", "[step]") {
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--cost-model", "roofline", "--engine", "sglang"},
           {"--cost-model", "roofline", "--engine-version", "0.14.0"},
           {"--cost-model", "roofline", "--cuda-graphs", "512"},
           {"--table", "/no/such/mlp.csv", "--engine", "trtllm"}}) {
    const Outcome r = step(extra);
    INFO(extra[0] + " " + extra[2]);
    CHECK(r.code == 2);
    CHECK(r.err.find("choose the measured kernel tables, which") != std::string::npos);
    CHECK(r.out.empty());
  }
  // The tables hold no int4 GEMMs, so the roofline prices the step whatever --engine says.
  const Outcome fallback = step({"--weights", "int4", "--engine", "sglang"});
  REQUIRE(fallback.code == 0);
  CHECK(fallback.err.find("warning: the roofline priced the step, so --engine, --engine-version and --cuda-graphs "
                          "had no effect; the default where kernel tables do not cover the pool") != std::string::npos);
  CHECK(fallback.err.find("int4") != std::string::npos);
  CHECK(ms(fallback) == ms(step({"--weights", "int4", "--cost-model", "roofline"})));
}

TEST_CASE("step: --micro-batches without a pipeline is refused - as a pool's micro_batches is", "[step]") {
  const Outcome r = step({"--micro-batches", "4"});
  CHECK(r.code == 2);
  CHECK(r.err.find("micro_batches: needs pp 2 or more") != std::string::npos);
  const Outcome piped = step({"--pp", "2", "--micro-batches", "4"});
  INFO(piped.err);
  CHECK(piped.code == 0);
  CHECK(nlohmann::json::parse(piped.out)["micro_batches"] == 4);
}

TEST_CASE("step: a sequence beyond the model's context is priced with a warning", "[step]") {
  // llama-3-8b: max_context_tokens 8192 (models/llama-3-8b.yaml).
  const Outcome within = step({"--prefill", "1000:7192"});
  REQUIRE(within.code == 0);
  CHECK(within.err.empty());
  const Outcome beyond = step({"--prefill", "1000:7193"});
  REQUIRE(beyond.code == 0);
  CHECK(beyond.err.find("warning: a sequence reaches 8193 tokens, beyond llama-3-8b's context of 8192") !=
        std::string::npos);
  // A decode at context CTX makes a sequence of CTX + 1 (the default batch decodes 8 at 1024).
  CHECK(step({"--decode", "1:8191"}).err.find("reaches 8192") == std::string::npos);
  CHECK(step({"--decode", "1:8192"}).err.find("reaches 8193 tokens") != std::string::npos);
}

}  // namespace step_engine_options_test
