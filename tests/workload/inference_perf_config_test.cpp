// An inference-perf config.yaml replayed as the tool runs it: the schema's defaults and
// checks, the prompts in the order the tool hands them out, the stage timers and the
// stage-to-stage timing. Every expected number is worked out from inference-perf's source
// (inference_perf/config/, datagen/synthetic/, loadgen/), as cited on each check.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/inference_perf_config.h"
#include "sim/workload/benchmark/inference_perf_config_source.h"
#include "sim/workload/benchmark/inference_perf_lengths.h"
#include "workload/workload_test_util.h"

namespace inference_perf_config_test {

using namespace servesim;
using servesim::testing::TempFile;

namespace {

InferencePerfLoad load_of(const std::string& name, const std::string& yaml) {
  TempFile f(name, yaml);
  return read_inference_perf_config(f.path());
}

// The ConfigError reading `yaml` raises: its line, key and message.
ConfigError error_of(const std::string& yaml) {
  TempFile f("bad.yaml", yaml);
  try {
    read_inference_perf_config(f.path());
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for:\n" << yaml);
  return ConfigError("", 0, "", "");
}

InferencePerfConfigSource source_of(const std::string& yaml, std::int64_t block_tokens = 16,
                                    std::optional<int> stage = std::nullopt) {
  return InferencePerfConfigSource(load_of("cfg.yaml", yaml), stage, "ip", 0, 7, block_tokens);
}

}  // namespace

TEST_CASE("inference-perf config: the defaults of keys the config leaves out", "[workload][inference-perf-config]") {
  const InferencePerfLoad l = load_of("defaults.yaml",
                                      "data:\n  type: shared_prefix\n  shared_prefix: {}\n"
                                      "load:\n  stages: [{rate: 2, duration: 5}]\n");
  // LoadConfig: type constant, interval 1.0, worker_max_concurrency 100, num_workers the
  // CPU count (unknown here).
  CHECK(l.load_type == InferencePerfLoad::LoadType::constant);
  CHECK(l.interval_s == 1.0);
  CHECK(l.worker_max_concurrency == 100);
  CHECK_FALSE(l.num_workers.has_value());
  CHECK_FALSE(l.cap_of_stage(0).has_value());
  // SharedPrefix: 10 groups of 10 prompts, 100-token system prompt, 50-token question and output.
  CHECK(l.num_groups == 10);
  CHECK(l.prompts_per_group == 10);
  CHECK(l.system_prompt.kind == InferencePerfLength::Kind::fixed);
  CHECK(l.system_prompt.mean == 100);
  CHECK(l.question.mean == 50);
  CHECK(l.output.mean == 50);
  // run_stage: int(rate * duration).
  CHECK(l.requests_of_stage(0) == 10);
}

TEST_CASE("inference-perf config: aliases and legacy distributions and the worker cap", "[workload][inference-perf-config]") {
  const InferencePerfLoad l = load_of("aliases.yaml",
                                      "data:\n"
                                      "  type: shared_prefix\n"
                                      "  shared_prefix:\n"
                                      "    num_unique_system_prompts: 3\n"
                                      "    num_users_per_system_prompt: 7\n"
                                      "    question_len: 20\n"
                                      "    question_distribution: {min: 5, max: 9, mean: 7, std_dev: 1}\n"
                                      "load:\n"
                                      "  type: poisson\n"
                                      "  num_workers: 4\n"
                                      "  worker_max_concurrency: 25\n"
                                      "  stages: [{rate: 2.5, duration: 3}]\n");
  CHECK(l.num_groups == 3);
  CHECK(l.prompts_per_group == 7);
  // _resolve_distribution: a bare question_len gives way to the legacy distribution.
  CHECK(l.question.kind == InferencePerfLength::Kind::normal);
  CHECK(l.question.min == 5);
  CHECK(l.question.max == 9);
  // 4 workers x Semaphore(25).
  CHECK(l.cap_of_stage(0) == 100);
  // int(2.5 * 3) = int(7.5) = 7.
  CHECK(l.requests_of_stage(0) == 7);
  // pydantic's int takes 30.0 but not 30.5.
  CHECK(load_of("float.yaml", "data:\n  type: shared_prefix\n  shared_prefix: {}\n"
                              "load:\n  stages: [{rate: 1, duration: 30.0}]\n")
            .stages[0]
            .duration_s == 30);
  CHECK_THROWS_AS(load_of("float.yaml", "data:\n  type: shared_prefix\n  shared_prefix: {}\n"
                                        "load:\n  stages: [{rate: 1, duration: 30.5}]\n"),
                  ConfigError);
}

TEST_CASE("inference-perf config: what it cannot reproduce is refused with file line and key",
          "[workload][inference-perf-config]") {
  const std::string load = "load:\n  stages: [{rate: 1, duration: 10}]\n";
  {
    const ConfigError e = error_of("data:\n  type: shareGPT\n" + load);
    CHECK(e.line() == 2);
    CHECK(e.key() == "data.type");
    CHECK_THAT(e.message(), Catch::Contains("shared_prefix, random, synthetic"));
  }
  {
    const ConfigError e = error_of("data:\n  type: shared_prefix\n  shared_prefix:\n    num_grups: 3\n" + load);
    CHECK(e.line() == 4);
    CHECK(e.key() == "data.shared_prefix.num_grups");
    CHECK_THAT(e.message(), Catch::Contains("num_groups"));
  }
  {
    const ConfigError e = error_of("data:\n  type: shared_prefix\n  shared_prefix: {}\n" + load +
                                   "  request_timeout: 30\n");
    CHECK(e.line() == 6);
    CHECK(e.key() == "load.request_timeout");
  }
  {
    // validate_distribution: variance beside the default std_dev (200) is refused.
    const ConfigError e = error_of("data:\n  type: random\n  input_distribution: {variance: 4}\n"
                                   "  output_distribution: {}\n" + load);
    CHECK(e.key() == "data.input_distribution.variance");
  }
  {
    // generate_distribution knows no poisson type.
    const ConfigError e = error_of("data:\n  type: random\n  input_distribution: {type: poisson}\n"
                                   "  output_distribution: {}\n" + load);
    CHECK(e.key() == "data.input_distribution.type");
  }
  {
    const ConfigError e = error_of("data:\n  type: shared_prefix\n  shared_prefix: {}\n"
                                   "load:\n  type: concurrent\n  stages:\n  - {rate: 3, num_requests: 5, concurrency_level: 2}\n");
    CHECK(e.line() == 7);
    CHECK(e.key() == "load.stages.0.rate");
  }
  {
    const ConfigError e = error_of("api: {type: chat}\ndata:\n  type: shared_prefix\n  shared_prefix: {}\n" + load);
    CHECK(e.line() == 1);
    CHECK(e.key() == "api.type");
  }
  {
    // DataConfig.type defaults to mock.
    const ConfigError e = error_of(load);
    CHECK_THAT(e.message(), Catch::Contains("mock"));
  }
}

TEST_CASE("inference-perf config: shared_prefix prompts are a shuffle of every group x question handed out in turn",
          "[workload][inference-perf-config]") {
  // 3 groups of 4 prompts; system prompt 40 tokens, question 8: with 16-token blocks a
  // prompt has floor(48 / 16) = 3 blocks, the first floor(40 / 16) = 2 all system prompt,
  // the third mixing system-prompt tokens 32..39 with the question.
  const std::string yaml =
      "data:\n  type: shared_prefix\n"
      "  shared_prefix: {num_groups: 3, num_prompts_per_group: 4, system_prompt_len: 40, question_len: 8,"
      " output_len: 5}\n"
      "load:\n  type: constant\n  interval: 2\n  stages: [{rate: 10, duration: 3}, {rate: 5, duration: 2}]\n";
  InferencePerfConfigSource src = source_of(yaml);
  REQUIRE(src.total_requests() == 30 + 10);

  // The first G x P = 12 data indices name each (group, member) once (rng.permutation),
  // and data index i + 12 names the same prompt as i (load_lazy_data: i % len(prompts)).
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (std::int64_t i = 0; i < 12; ++i) {
    const auto p = src.shared_prefix_prompt(i);
    CHECK(p.prefix_tokens == 40);
    CHECK(p.question_tokens == 8);
    CHECK(p.output_tokens == 5);
    seen.insert({p.group, p.member});
    const auto again = src.shared_prefix_prompt(i + 12);
    CHECK(again.group == p.group);
    CHECK(again.member == p.member);
  }
  CHECK(seen.size() == 12);
  // Shuffled, not built order: with the seed used here the first 12 are not 0..11 in turn.
  bool built_order = true;
  for (std::int64_t i = 0; i < 12; ++i)
    built_order = built_order && src.shared_prefix_prompt(i).group * 4 + src.shared_prefix_prompt(i).member == i;
  CHECK_FALSE(built_order);

  // Stage 0: 30 requests. Their block hashes share exactly as the prompts do.
  std::vector<RequestSpec> stage0;
  for (int i = 0; i < 30; ++i) {
    REQUIRE(src.peek_arrival_ns().has_value());
    stage0.push_back(src.pop());
  }
  CHECK_FALSE(src.peek_arrival_ns().has_value());  // stage 1 waits for stage 0 to finish
  std::map<std::int64_t, std::vector<std::uint64_t>> first_of_group;
  for (std::int64_t i = 0; i < 30; ++i) {
    const RequestSpec& r = stage0[static_cast<std::size_t>(i)];
    const auto p = src.shared_prefix_prompt(i);
    REQUIRE(r.prompt_tokens == 48);
    REQUIRE(r.output_tokens == 5);
    REQUIRE(r.block_hashes.size() == 3);
    auto [it, fresh] = first_of_group.emplace(p.group, r.block_hashes);
    if (!fresh) {
      // Same group: the two system-prompt blocks match.
      CHECK(r.block_hashes[0] == it->second[0]);
      CHECK(r.block_hashes[1] == it->second[1]);
    }
    for (const auto& [g, hashes] : first_of_group)
      if (g != p.group) CHECK(r.block_hashes[0] != hashes[0]);  // another group shares nothing
    // The third block holds the question: equal only for the same prompt (i and i + 12).
    for (std::int64_t j = 0; j < i; ++j) {
      const bool same_prompt = (i - j) % 12 == 0;
      CHECK((stage0[static_cast<std::size_t>(j)].block_hashes[2] == r.block_hashes[2]) == same_prompt);
    }
  }
  CHECK(first_of_group.size() == 3);

  // Stage 1 restarts at data index 0 (run_stage calls get_data() afresh): its requests
  // repeat stage 0's first 10 prompts whole.
  for (const RequestSpec& r : stage0) src.on_finished(r, ticks_from_seconds(3.4));
  for (int i = 0; i < 10; ++i) {
    REQUIRE(src.peek_arrival_ns().has_value());
    const RequestSpec r = src.pop();
    CHECK(r.block_hashes == stage0[static_cast<std::size_t>(i)].block_hashes);
  }
  CHECK(src.exhausted());
}

TEST_CASE("inference-perf config: constant stages end on their duration and the next starts after the poll and interval",
          "[workload][inference-perf-config]") {
  const std::string yaml =
      "data:\n  type: shared_prefix\n  shared_prefix: {}\n"
      "load:\n  type: constant\n  interval: 2\n  stages: [{rate: 2.5, duration: 3}, {rate: 1, duration: 4}]\n";
  InferencePerfConfigSource src = source_of(yaml);
  // Stage 0: int(2.5 x 3) = 7 requests; ConstantLoadTimer scales the gaps to sum to the
  // duration, so the 7th is due at exactly 3 s and the others inside (0, 3).
  std::vector<RequestSpec> stage0;
  Tick last = 0;
  for (int i = 0; i < 7; ++i) {
    const RequestSpec r = src.pop();
    CHECK(r.arrival_ns > last);
    last = r.arrival_ns;
    stage0.push_back(r);
  }
  CHECK(std::llabs(last - 3 * kNsPerSec) <= 1);
  CHECK_FALSE(src.peek_arrival_ns().has_value());
  // The last request finishes at 3.2 s. run_stage polled from R = -1 s each second: it sees
  // the stage done at -1 + ceil(4.2) = 4 s, sleeps interval 2 s, and the next stage's
  // origin is 1 s after that: 7 s.
  for (std::size_t i = 0; i + 1 < stage0.size(); ++i) src.on_finished(stage0[i], ticks_from_seconds(3.1));
  CHECK_FALSE(src.peek_arrival_ns().has_value());  // one still in flight
  src.on_finished(stage0.back(), ticks_from_seconds(3.2));
  // Stage 1: int(1 x 4) = 4 requests in (7 s, 11 s], the last at 11 s.
  last = 7 * kNsPerSec;
  for (int i = 0; i < 4; ++i) {
    const RequestSpec r = src.pop();
    CHECK(r.arrival_ns > last);
    last = r.arrival_ns;
  }
  CHECK(std::llabs(last - 11 * kNsPerSec) <= 1);
  CHECK(src.exhausted());
}

TEST_CASE("inference-perf config: poisson stages draw a Poisson count per second and spread it over that second",
          "[workload][inference-perf-config]") {
  const std::string yaml =
      "data:\n  type: shared_prefix\n  shared_prefix: {}\n"
      "load:\n  type: poisson\n  stages: [{rate: 50, duration: 100}]\n";
  InferencePerfConfigSource src = source_of(yaml);
  // int(50 x 100) = 5000 requests, taken from one-second windows of Poisson(50) requests
  // each, the last of a window due at its end (ConstantLoadTimer(c, 1.0)).
  std::map<std::int64_t, int> per_window;  // window index (ceil of the time - 1) -> requests
  Tick last = 0;
  for (int i = 0; i < 5000; ++i) {
    const RequestSpec r = src.pop();
    REQUIRE(r.arrival_ns > last);
    last = r.arrival_ns;
    const auto window = (r.arrival_ns - 1) / kNsPerSec;  // (k, k + 1] -> k
    ++per_window[window];
  }
  CHECK(src.exhausted());
  // The windows before the last are whole; their counts have mean 50 and variance 50.
  std::vector<double> counts;
  for (auto it = per_window.begin(); std::next(it) != per_window.end(); ++it) counts.push_back(it->second);
  const auto m = servesim::testing::moments_of(counts);
  CHECK(m.mean == Approx(50).margin(servesim::testing::mean_tolerance(50, counts.size())));
  // Each whole window's last request lands on the second (its end).
  std::int64_t on_the_second = 0;
  InferencePerfConfigSource again = source_of(yaml);
  for (int i = 0; i < 5000; ++i) {
    const Tick t = again.pop().arrival_ns;
    if (t % kNsPerSec == 0) ++on_the_second;
  }
  // One per non-empty window (Poisson(50) is never 0 in practice), the last window maybe cut short.
  CHECK(on_the_second >= static_cast<std::int64_t>(counts.size()));
  CHECK(on_the_second <= static_cast<std::int64_t>(counts.size()) + 1);
}

TEST_CASE("inference-perf config: a concurrent stage keeps concurrency_level requests in flight",
          "[workload][inference-perf-config]") {
  const std::string yaml =
      "data:\n  type: shared_prefix\n  shared_prefix: {}\n"
      "load:\n  type: concurrent\n  stages: [{num_requests: 10, concurrency_level: 3}]\n";
  InferencePerfConfigSource src = source_of(yaml);
  // main.py: rate = num_requests, duration = 1: all 10 are due within the first second;
  // the workers' semaphores (3 in all) let 3 out.
  std::vector<RequestSpec> sent;
  for (int i = 0; i < 3; ++i) {
    const RequestSpec r = src.pop();
    CHECK(r.arrival_ns > 0);
    CHECK(r.arrival_ns <= kNsPerSec);
    sent.push_back(r);
  }
  CHECK_FALSE(src.peek_arrival_ns().has_value());
  // One finishes at 5 s: the 4th request (due before 1 s) goes at once.
  src.on_finished(sent[0], 5 * kNsPerSec);
  REQUIRE(src.peek_arrival_ns().has_value());
  CHECK(*src.peek_arrival_ns() == 5 * kNsPerSec);
  src.pop();
  CHECK_FALSE(src.peek_arrival_ns().has_value());
}

TEST_CASE("inference-perf config: random lengths repeat per stage and no prompt shares a block",
          "[workload][inference-perf-config]") {
  const std::string yaml =
      "data:\n  type: random\n"
      "  input_distribution: {min: 20, max: 200, mean: 100, std_dev: 40}\n"
      "  output_distribution: {type: fixed, mean: 12.9}\n"
      "load:\n  interval: 0\n  stages: [{rate: 5, duration: 2}, {rate: 5, duration: 2}]\n";
  InferencePerfConfigSource src = source_of(yaml);
  std::vector<RequestSpec> stage0, stage1;
  for (int i = 0; i < 10; ++i) stage0.push_back(src.pop());
  for (const RequestSpec& r : stage0) src.on_finished(r, 3 * kNsPerSec);
  for (int i = 0; i < 10; ++i) stage1.push_back(src.pop());
  // interval 0: the next origin is -1 + ceil(3 - (-1)) + 0 + 1 = 4 s.
  CHECK(stage1.front().arrival_ns > 4 * kNsPerSec);
  CHECK(std::llabs(stage1.back().arrival_ns - 6 * kNsPerSec) <= 1);
  std::set<std::uint64_t> first_blocks;
  for (int i = 0; i < 10; ++i) {
    // RandomDataGenerator.load_lazy_data: input_lengths[n], output_lengths[n] for data index n.
    CHECK(stage1[i].prompt_tokens == stage0[i].prompt_tokens);
    CHECK(stage0[i].prompt_tokens >= 20);
    CHECK(stage0[i].prompt_tokens <= 200);
    CHECK(stage0[i].output_tokens == 12);  // fixed: int(12.9)
    // Fresh random tokens per request: the first block of each is its own.
    first_blocks.insert(stage0[i].block_hashes.at(0));
    first_blocks.insert(stage1[i].block_hashes.at(0));
  }
  CHECK(first_blocks.size() == 20);
}

TEST_CASE("inference-perf config: the length samplers keep the tool's bounds and rounding",
          "[workload][inference-perf-config]") {
  Rng rng(3, "lengths");
  InferencePerfLength u;
  u.kind = InferencePerfLength::Kind::uniform;
  u.min = 10;
  u.max = 12;
  // sample_from_distribution: uniform on [min, max + 1) = [10, 13), clipped to 12, rounded
  // half to even: 10 on [10, 10.5] (1/6), 11 on (10.5, 11.5) (1/3), 12 on [11.5, 13) (1/2).
  std::map<std::int64_t, int> shares;
  const int n = 60000;
  for (int i = 0; i < n; ++i) ++shares[shared_prefix_length(u, rng)];
  REQUIRE(shares.size() == 3);
  CHECK(shares[10] == Approx(n / 6.0).margin(5 * std::sqrt(n / 6.0)));
  CHECK(shares[11] == Approx(n / 3.0).margin(5 * std::sqrt(n / 3.0)));
  CHECK(shares[12] == Approx(n / 2.0).margin(5 * std::sqrt(n / 2.0)));
  // generate_distribution: uniform on [min, max): 10 on [10, 10.5] (1/4), 11 (1/2), 12 on [11.5, 12) (1/4).
  shares.clear();
  for (int i = 0; i < n; ++i) ++shares[io_length(u, rng)];
  CHECK(shares[10] == Approx(n / 4.0).margin(5 * std::sqrt(n / 4.0)));
  CHECK(shares[11] == Approx(n / 2.0).margin(5 * std::sqrt(n / 2.0)));
  CHECK(shares[12] == Approx(n / 4.0).margin(5 * std::sqrt(n / 4.0)));
  // Poisson counts: mean and variance lambda, here above one 30-wide slice.
  std::vector<double> xs;
  for (int i = 0; i < 20000; ++i) xs.push_back(static_cast<double>(poisson_count(45, rng)));
  const auto m = servesim::testing::moments_of(xs);
  CHECK(m.mean == Approx(45).margin(servesim::testing::mean_tolerance(45, xs.size())));
  // Fourth central moment of Poisson(l): l (1 + 3 l).
  CHECK(m.variance == Approx(45).margin(servesim::testing::variance_tolerance(45, 45 * (1 + 3 * 45.0), xs.size())));
}

TEST_CASE("inference-perf config: trace.stage replays one stage alone from time 0", "[workload][inference-perf-config]") {
  const std::string yaml =
      "data:\n  type: shared_prefix\n  shared_prefix: {num_groups: 2, num_prompts_per_group: 2}\n"
      "load:\n  interval: 30\n  stages: [{rate: 1, duration: 3}, {rate: 2, duration: 2}]\n";
  InferencePerfConfigSource src = source_of(yaml, 16, 1);
  // Stage 1 alone: int(2 x 2) = 4 requests in (0, 2 s], the last at 2 s, data index 0 first.
  REQUIRE(src.total_requests() == 4);
  Tick last = 0;
  for (int i = 0; i < 4; ++i) last = src.pop().arrival_ns;
  CHECK(std::llabs(last - 2 * kNsPerSec) <= 1);
  CHECK(src.exhausted());
  // A stage the file does not have names the stages it has.
  TempFile f("stages.yaml", yaml);
  try {
    InferencePerfConfigSource(read_inference_perf_config(f.path()), 2, "ip", 0, 7, 16);
    FAIL("stage 2 was accepted");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "load.stages");
    CHECK_THAT(e.message(), Catch::Contains("0 to 1"));
  }
}

TEST_CASE("inference-perf config: the one-line description names stages and prompts", "[workload][inference-perf-config]") {
  const InferencePerfLoad l = load_of("describe.yaml",
                                      "data:\n  type: shared_prefix\n"
                                      "  shared_prefix: {num_groups: 8, num_prompts_per_group: 50, system_prompt_len: 1500,"
                                      " question_len: 150, output_len: 100}\n"
                                      "load:\n  interval: 15\n  stages: [{rate: 1, duration: 30}, {rate: 2.5, duration: 30}]\n");
  CHECK(describe_inference_perf_load(l) ==
        "constant, 2 stages (1 req/s x 30 s, 2.5 req/s x 30 s), interval 15 s; shared_prefix: 8 groups x 50 prompts, "
        "system prompt 1500, question 150, output 100 tokens");
}

TEST_CASE("inference-perf config: constant stages hold at most num_workers x worker_max_concurrency in flight",
          "[workload][inference-perf-config]") {
  const std::string yaml =
      "data:\n  type: shared_prefix\n  shared_prefix: {}\n"
      "load:\n  num_workers: 1\n  worker_max_concurrency: 2\n  stages: [{rate: 10, duration: 1}]\n";
  InferencePerfConfigSource src = source_of(yaml);
  // One worker with Semaphore(2): two requests out, the third waits for a finish.
  const RequestSpec a = src.pop();
  src.pop();
  CHECK_FALSE(src.peek_arrival_ns().has_value());
  // A finish at 4 s (after every due time, all within the 1 s stage) sends the third then.
  src.on_finished(a, 4 * kNsPerSec);
  REQUIRE(src.peek_arrival_ns().has_value());
  CHECK(src.pop().arrival_ns == 4 * kNsPerSec);
  CHECK_FALSE(src.peek_arrival_ns().has_value());
}

}  // namespace inference_perf_config_test
