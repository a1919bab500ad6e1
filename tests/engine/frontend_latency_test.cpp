// The engine's front-end latency (`overheads.frontend`, docs/engine.md "Front-end latency"):
// per request, a fixed part plus a part per prompt token, added to what the client sees
// (first token and finish) and to no step, so ITL and other requests' engine times stay.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <fstream>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "scenario/scenario_fixture.h"
#include "sim/cli/subcommands.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/scenario_summary.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::frontend_latency_test {
namespace {

// kMinimalScenario with every step 10 ms (constant cost model) and `engine` on line 11.
// Arrivals: constant rate `rate`; prompts `input`, 5 output tokens each.
std::string constant_step_scenario(const std::string& engine, const std::string& rate, const std::string& input,
                                   int requests) {
  std::string yaml = edit_line(kMinimalScenario, 11, engine + "\n      cost_model: {constant: {step: 10ms}}");
  yaml = edit_line(yaml, 3, "    arrival: {process: constant, rate: " + rate + "}");
  yaml = edit_line(yaml, 4, "    input: " + input);
  yaml = edit_line(yaml, 5, "    output: {fixed: 5}");
  yaml.replace(yaml.find("stop: {requests: 100}"), 21, "stop: {requests: " + std::to_string(requests) + "}");
  return yaml;
}

std::vector<RequestRecord> run_records(const Scenario& s) {
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  std::vector<RequestRecord> records;
  sim.add_request_sink([&](const RequestRecord& r) { records.push_back(r); });
  sim.run();
  return records;
}

std::map<std::uint64_t, RequestRecord> by_id(const std::vector<RequestRecord>& records) {
  std::map<std::uint64_t, RequestRecord> m;
  for (const RequestRecord& r : records) m[r.id] = r;
  return m;
}

}  // namespace

TEST_CASE("frontend latency: one request's TTFT and E2E grow by exactly the fixed part plus per token x prompt",
          "[policy][frontend]") {
  ScenarioDir dir;
  // One request at a time (one per second, each done in 50 ms): a 100-token prompt is one
  // 10 ms prefill step that also samples the first token, then 4 decode steps of 10 ms.
  const Scenario plain = load_scenario(dir.write(
      "plain.yaml", constant_step_scenario("      engine: {policy: continuous}", "1", "{fixed: 100}", 3)));
  const Scenario fronted = load_scenario(dir.write(
      "fronted.yaml",
      constant_step_scenario("      engine: {policy: continuous, overheads: {frontend: {per_request: 1ms, "
                             "per_prompt_token: 2us}}}",
                             "1", "{fixed: 100}", 3)));
  const EngineOverheads& o = fronted.cluster.pools.at(0).engine.overheads;
  CHECK(o.frontend_ns == 1'000'000);
  CHECK(o.frontend_per_prompt_token_ns == 2'000);
  const std::vector<RequestRecord> a = run_records(plain);
  const std::vector<RequestRecord> b = run_records(fronted);
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  // Hand-computed: 1 ms + 2 us x 100 prompt tokens = 1.2 ms.
  const Tick frontend = 1'000'000 + 2'000 * 100;
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("request " << i);
    REQUIRE(a[i].outcome == Outcome::completed);
    REQUIRE(b[i].outcome == Outcome::completed);
    CHECK(a[i].ttft_ns() == 10'000'000);
    CHECK(a[i].e2el_ns() == 50'000'000);
    CHECK(a[i].frontend_ns == 0);
    CHECK(b[i].frontend_ns == frontend);
    CHECK(b[i].ttft_ns() == 10'000'000 + frontend);
    CHECK(b[i].e2el_ns() == 50'000'000 + frontend);
    CHECK(b[i].tpot_ns() == a[i].tpot_ns());  // the gaps between tokens do not move
    CHECK(b[i].tpot_ns() == 10'000'000);
    CHECK(b[i].queue_ns() == a[i].queue_ns());
    // The front end is a TTFT part of its own: the engine's parts do not move, and with it
    // they still add up to the TTFT the client sees.
    CHECK(b[i].acct.ttft.overhead_ns == a[i].acct.ttft.overhead_ns);
    CHECK(b[i].acct.ttft.total() == a[i].acct.ttft.total());
    CHECK(b[i].acct.ttft.total() + b[i].frontend_ns == b[i].ttft_ns());
    CHECK(b[i].acct.decode.total() == b[i].finish_ns - b[i].first_token_ns);
  }
}

TEST_CASE("frontend latency: under load each request gets its own figure and no other request's engine times move",
          "[policy][frontend]") {
  ScenarioDir dir;
  // 200 requests/s of 50..1500-token prompts overlap in shared steps.
  const std::string input = "{uniform: [50, 1500]}";
  const Scenario plain = load_scenario(
      dir.write("plain.yaml", constant_step_scenario("      engine: {policy: chunked-prefill, max_batched_tokens: 2048}",
                                                     "200", input, 200)));
  const Scenario fronted = load_scenario(dir.write(
      "fronted.yaml", constant_step_scenario("      engine: {policy: chunked-prefill, max_batched_tokens: 2048, "
                                             "overheads: {frontend: {per_request: 300us, per_prompt_token: 1.1us}}}",
                                             "200", input, 200)));
  const auto a = by_id(run_records(plain));
  const auto b = by_id(run_records(fronted));
  REQUIRE(a.size() == 200);
  REQUIRE(b.size() == 200);
  int shared_steps = 0;
  for (const auto& [id, x] : a) {
    const RequestRecord& y = b.at(id);
    INFO("request " << id << ", prompt " << x.prompt_tokens);
    REQUIRE(x.outcome == Outcome::completed);
    REQUIRE(y.outcome == Outcome::completed);
    const Tick frontend = 300'000 + 1'100 * y.prompt_tokens;
    CHECK(y.frontend_ns == frontend);
    // The engine saw exactly the same run: the same steps at the same times.
    CHECK(y.first_scheduled_ns == x.first_scheduled_ns);
    CHECK(y.first_token_ns == x.first_token_ns + frontend);
    CHECK(y.finish_ns == x.finish_ns + frontend);
    CHECK(y.tpot_ns() == x.tpot_ns());
    CHECK(y.acct.max_itl_ns == x.acct.max_itl_ns);
    CHECK(y.acct.decode.total() == x.acct.decode.total());
    CHECK(y.acct.ttft.total() + y.frontend_ns == y.ttft_ns());
    if (x.ttft_ns() > 10'000'000) ++shared_steps;
  }
  CHECK(shared_steps > 20);  // the load did make requests wait for each other
}

TEST_CASE("frontend latency: a closed loop's next request starts when the client has the answer",
          "[policy][frontend]") {
  ScenarioDir dir;
  std::string yaml = constant_step_scenario(
      "      engine: {policy: continuous, overheads: {frontend: {per_request: 1ms, per_prompt_token: 2us}}}", "1",
      "{fixed: 100}", 3);
  yaml = edit_line(yaml, 3, "    arrival: {process: closed, concurrency: 1}");
  const std::vector<RequestRecord> r = run_records(load_scenario(dir.write("closed.yaml", yaml)));
  REQUIRE(r.size() == 3);
  CHECK(r[0].frontend_ns == 1'200'000);
  CHECK(r[1].arrival_ns == r[0].finish_ns);
  CHECK(r[2].arrival_ns == r[1].finish_ns);
  CHECK(r[1].e2el_ns() == 50'000'000 + 1'200'000);
}

TEST_CASE("frontend latency: a scalar frontend is the whole front end and a mapping key replaces only its part",
          "[policy][frontend]") {
  ScenarioDir dir;
  const auto engine_of = [&](const std::string& engine, const std::vector<std::string>& sets = {}) {
    return load_scenario(dir.write("s.yaml", edit_line(kMinimalScenario, 11, engine)), sets)
        .cluster.pools.at(0)
        .engine.overheads;
  };
  const EngineOverheads flat = engine_of("      engine: {overheads: {frontend: 1ms}}");
  CHECK(flat.frontend_ns == 1'000'000);
  CHECK(flat.frontend_per_prompt_token_ns == 0);
  CHECK(flat.frontend_for(1000) == 1'000'000);
  const EngineOverheads both = engine_of("      engine: {overheads: {frontend: {per_request: 2ms, per_prompt_token: 1.1us}}}");
  CHECK(both.frontend_for(1000) == 2'000'000 + 1'100'000);
  // On top of a preset: one key of the mapping keeps the preset's other part; a scalar
  // replaces both.
  const EngineOverheads vllm = engine_of("      engine: {preset: vllm}");
  CHECK(vllm.frontend_ns == 764'000);
  CHECK(vllm.frontend_per_prompt_token_ns == 1'230);
  const EngineOverheads per_token_only =
      engine_of("      engine: {preset: vllm, overheads: {frontend: {per_prompt_token: 3us}}}");
  CHECK(per_token_only.frontend_ns == 764'000);
  CHECK(per_token_only.frontend_tokenizer_batch_wait_ns == 2'000'000);
  CHECK(per_token_only.frontend_per_prompt_token_ns == 3'000);
  const EngineOverheads off = engine_of("      engine: {preset: vllm, overheads: {frontend: 0ms}}");
  CHECK(off.frontend_for(100000) == 0);
  const EngineOverheads set = engine_of("      engine: {preset: sglang}", {"cluster.pools.0.engine.overheads.frontend=2ms"});
  CHECK(set.frontend_ns == 2'000'000);
  CHECK(set.frontend_per_prompt_token_ns == 0);
}

TEST_CASE("frontend latency: the presets price the front end from their components", "[policy][frontend]") {
  ScenarioDir dir;
  const auto preset = [&](const std::string& name) {
    return load_scenario(dir.write("p.yaml", edit_line(kMinimalScenario, 11, "      engine: {preset: " + name + "}")))
        .cluster.pools.at(0)
        .engine.overheads;
  };
  // Each preset's parts are the request-path microbenchmarks' medians (in whole us), summed
  // as its YAML itemises them; tokenising is 1.1 us per prompt token (a cited figure).
  std::ifstream in(std::string(SERVESIM_SOURCE_DIR) + "/bench/request_path/results-vm-2026-12-06.json");
  REQUIRE(in);
  const nlohmann::json figures = nlohmann::json::parse(in)["figures_us"];
  const auto us = [&](const char* group, const char* key) {
    return std::llround(figures[group][key]["median"].get<double>());
  };
  const auto ns = [](double us_value) { return static_cast<Tick>(std::llround(us_value * 1000)); };
  const long long http = us("http", "http_first_sse_chunk_us"), render = us("template", "template_render_1msg_us"),
                  hop_in = us("ipc", "fit_fixed_us"), hop_out = us("ipc", "outputs_1req_one_way_encode_send_recv_decode_us"),
                  wake = us("handoff", "thread_queue_wakeup_us"), queue = us("handoff", "asyncio_queue_wakeup_us"),
                  event = us("handoff", "asyncio_event_wakeup_us"), chunk = us("validation", "sse_chunk_build_serialise_us");
  CHECK(preset("vllm").frontend_ns == ns(http + render + hop_in + wake + hop_out + queue + event + chunk));
  CHECK(preset("sglang").frontend_ns == ns(http + render + hop_in + 2 * hop_out + event + chunk));
  CHECK(preset("trtllm").frontend_ns == ns(http + render + chunk));
  const double per_id = figures["ipc"]["fit_per_prompt_token_us"]["median"].get<double>();
  const double per_hash = figures["hash"]["sha256_pickle_per_prompt_token_us"]["median"].get<double>();
  CHECK(preset("vllm").frontend_per_prompt_token_ns == ns(std::round((1.1 + per_id + per_hash) * 100) / 100));
  CHECK(preset("sglang").frontend_per_prompt_token_ns == ns(std::round((1.1 + per_id) * 100) / 100));
  CHECK(preset("trtllm").frontend_per_prompt_token_ns == 1'100);
  // Only vLLM gathers prompts for its tokenizer (AsyncMicrobatchTokenizer, 2 ms).
  CHECK(preset("vllm").frontend_tokenizer_batch_wait_ns == 2'000'000);
  CHECK(preset("sglang").frontend_tokenizer_batch_wait_ns == 0);
  CHECK(preset("trtllm").frontend_tokenizer_batch_wait_ns == 0);
  for (const char* name : {"vllm", "sglang", "trtllm"}) {
    INFO(name);
    const EngineOverheads o = preset(name);
    CHECK(o.per_step_ns == 0);
    CHECK(o.per_request_ns == 0);
    CHECK(o.per_token_ns == 0);
  }
}

TEST_CASE("frontend latency: a negative or unit-less figure exits 2 naming file - line and key",
          "[policy][frontend]") {
  struct Bad {
    const char* engine;
    const char* key;
    const char* message;
  };
  const std::vector<Bad> rows = {
      {"      engine: {overheads: {frontend: -1ms}}", "cluster.pools.0.engine.overheads.frontend", "bad duration"},
      {"      engine: {overheads: {frontend: 3 apples}}", "cluster.pools.0.engine.overheads.frontend", "bad duration"},
      {"      engine: {overheads: {frontend: {per_request: 1ms, per_prompt_token: -1us}}}",
       "cluster.pools.0.engine.overheads.frontend.per_prompt_token", "bad duration"},
      {"      engine: {overheads: {frontend: {per_request: 5}}}", "", ""},  // a bare number is seconds: valid
      {"      engine: {overheads: {frontend: {per_request: 2 parsecs}}}",
       "cluster.pools.0.engine.overheads.frontend.per_request", "bad duration"},
      {"      engine: {overheads: {frontend: {per_token: 1us}}}", "cluster.pools.0.engine.overheads.frontend.per_token",
       "unknown key"},
  };
  ScenarioDir dir;
  for (const Bad& row : rows) {
    INFO(row.engine);
    const std::string path = dir.write("bad.yaml", edit_line(kMinimalScenario, 11, row.engine));
    std::ostringstream out, err;
    const int code = cli::run_subcommand("validate", {path}, out, err);
    if (std::string(row.key).empty()) {
      CHECK(code == 0);
      continue;
    }
    CHECK(code == 2);
    CHECK_THAT(err.str(), Catch::Contains(path + ":11:"));
    CHECK_THAT(err.str(), Catch::Contains(row.key));
    CHECK_THAT(err.str(), Catch::Contains(row.message));
    try {
      load_scenario(path);
      FAIL("no ConfigError");
    } catch (const ConfigError& e) {
      CHECK(e.file() == path);
      CHECK(e.line() == 11);
      CHECK(e.key() == row.key);
    }
  }
}


TEST_CASE("frontend latency: the tokenizer's batch window makes a lone prompt wait all of it and a joining one the rest",
          "[policy][frontend]") {
  // vLLM's AsyncMicrobatchTokenizer: the first prompt opens a 2 ms window; prompts arriving
  // before its deadline are encoded with it at the deadline; one arriving at the deadline
  // opens the next window.
  ScenarioDir dir;
  const std::string engine =
      "      engine: {policy: chunked-prefill, overheads: {frontend: {per_request: 500us, per_prompt_token: 1us, "
      "tokenizer_batch_wait: 2ms}}}";
  auto front_ends = [&](const std::string& rate) {
    const Scenario s = load_scenario(dir.write("rate" + rate + ".yaml", constant_step_scenario(engine, rate, "100", 8)));
    CHECK(s.cluster.pools[0].engine.overheads.frontend_tokenizer_batch_wait_ns == 2'000'000);
    std::vector<RequestRecord> records = run_records(s);
    std::sort(records.begin(), records.end(),
              [](const RequestRecord& x, const RequestRecord& y) { return x.arrival_ns < y.arrival_ns; });
    std::vector<Tick> out;
    for (const RequestRecord& r : records) {
      REQUIRE(r.outcome == Outcome::completed);
      CHECK(r.ttft_ns() == r.acct.ttft.total() + r.frontend_ns);
      out.push_back(r.frontend_ns);
    }
    return out;
  };
  // 100 requests/s: every prompt arrives 10 ms after the last window closed and waits 2 ms;
  // 500 us + 100 tokens x 1 us + 2 ms = 2.6 ms.
  CHECK(front_ends("100") == std::vector<Tick>(8, 2'600'000));
  // 1000 requests/s, 1 ms apart: prompt 0 opens [0, 2 ms), prompt 1 joins at 1 ms and waits
  // 1 ms, prompt 2 arrives at the deadline and opens the next window, and so on.
  CHECK(front_ends("1000") ==
        std::vector<Tick>{2'600'000, 1'600'000, 2'600'000, 1'600'000, 2'600'000, 1'600'000, 2'600'000, 1'600'000});
}

TEST_CASE("frontend latency: a scalar frontend replaces every part of a preset's", "[policy][frontend]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write(
      "scalar.yaml", constant_step_scenario("      engine: {preset: vllm, overheads: {frontend: 1ms}}", "10", "100", 4)));
  const EngineOverheads& o = s.cluster.pools[0].engine.overheads;
  CHECK(o.frontend_ns == 1'000'000);
  CHECK(o.frontend_per_prompt_token_ns == 0);
  CHECK(o.frontend_tokenizer_batch_wait_ns == 0);
}

TEST_CASE("frontend latency: a first token's chunk is written after the chunks of the other outputs in its step",
          "[policy][frontend]") {
  // 100 us of API-server CPU per streamed token. Three requests 1 ns apart: the first starts
  // a 10 ms step alone (no other output: 0); the other two are prefilled in the next step
  // together with the first's decode (3 outputs, new ones last: 2 others, 200 us each).
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write(
      "streamed.yaml",
      constant_step_scenario("      engine: {policy: chunked-prefill, overheads: {frontend: {per_streamed_token: 100us}}}",
                             "1000000000", "100", 3)));
  std::vector<RequestRecord> records = run_records(s);
  REQUIRE(records.size() == 3);
  std::sort(records.begin(), records.end(),
            [](const RequestRecord& x, const RequestRecord& y) { return x.arrival_ns < y.arrival_ns; });
  CHECK(records[0].frontend_ns == 0);
  CHECK(records[0].ttft_ns() == 10'000'000);
  CHECK(records[1].frontend_ns == 200'000);
  CHECK(records[2].frontend_ns == 200'000);
  CHECK(records[1].ttft_ns() == 20'000'000 - 1 + 200'000);
  for (const RequestRecord& r : records) {
    CHECK(r.tpot_ns() == 10'000'000);  // every token is late by the same: the gaps stay
    CHECK(r.acct.ttft.total() + r.frontend_ns == r.ttft_ns());
  }
}

TEST_CASE("frontend latency: validate describes a priced front end and says nothing of an unpriced one",
          "[policy][frontend]") {
  ScenarioDir dir;
  const auto described = [&](const std::string& engine) {
    return describe_scenario(load_scenario(dir.write("d.yaml", edit_line(kMinimalScenario, 11, engine))));
  };
  CHECK(described("      engine: {preset: vllm}")
            .find("front end 764 us + 1.23 us per prompt token + tokenizer batch window 2 ms; 39 us of API-server CPU "
                  "per streamed token") != std::string::npos);
  CHECK(described("      engine: {preset: sglang}").find("front end 804 us + 1.15 us per prompt token; 39 us") !=
        std::string::npos);
  CHECK(described("      engine: {policy: chunked-prefill}").find("front end") == std::string::npos);
}

}  // namespace servesim::frontend_latency_test
