// The load of a vllm bench serve command line (vllm_bench_serve_source.h): the length
// intervals, prompt sharing and schedule worked out by hand from vllm/benchmarks
// (datasets/random.py get_sampling_params, datasets/prefix_repetition.py sample,
// serve.py get_request and benchmark).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <set>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/vllm_bench_serve_source.h"
#include "workload/workload_test_util.h"

namespace servesim::vllm_bench_serve_source_test {
namespace {

using testing::moments_of;
using testing::TempFile;
using testing::variance_tolerance;

VllmBenchServeArgs random_args(std::int64_t input, std::int64_t output, double ratio, std::int64_t special = 0) {
  VllmBenchServeArgs a;
  a.random_input_len = input;
  a.random_output_len = output;
  a.random_range_ratio = ratio;
  a.special_tokens = special;
  return a;
}

// A server that takes every request the moment the source offers it and finishes it
// `service_ns` later: the times each request went and the most in flight at once.
struct Drive {
  std::vector<RequestSpec> sent;
  std::int64_t most_in_flight = 0;
};
Drive drive(RequestSource& source, Tick service_ns) {
  Drive d;
  std::priority_queue<std::pair<Tick, std::size_t>, std::vector<std::pair<Tick, std::size_t>>, std::greater<>> finishes;
  Tick now = 0;
  while (!source.exhausted() || !finishes.empty()) {
    const std::optional<Tick> next = source.peek_arrival_ns();
    if (next && (finishes.empty() || std::max(*next, now) <= finishes.top().first)) {
      now = std::max(*next, now);
      RequestSpec r = source.pop();
      r.arrival_ns = now;  // a request due in the past goes now, as the simulation sends it
      d.sent.push_back(r);
      finishes.push({now + service_ns, d.sent.size() - 1});
      d.most_in_flight = std::max<std::int64_t>(d.most_in_flight, static_cast<std::int64_t>(finishes.size()));
      continue;
    }
    REQUIRE_FALSE(finishes.empty());
    const auto [at, index] = finishes.top();
    finishes.pop();
    now = at;
    source.on_finished(d.sent[index], now);
  }
  return d;
}

}  // namespace

TEST_CASE("vllm bench serve: random lengths are drawn from get_sampling_params' intervals", "[workload]") {
  // floor(1024 x 0.9) = floor(921.6) = 921, ceil(1024 x 1.1) = ceil(1126.4) = 1127.
  TokenInterval in = vllm_bench_random_input_interval(random_args(1024, 128, 0.1));
  CHECK(in.low == 921);
  CHECK(in.high == 1127);
  // Outputs: floor(115.2) = 115, ceil(140.8) = 141.
  TokenInterval out = vllm_bench_random_output_interval(random_args(1024, 128, 0.1));
  CHECK(out.low == 115);
  CHECK(out.high == 141);
  // A BOS token counts against the input length: 1023 -> floor(920.7) = 920, ceil(1125.3) = 1126.
  in = vllm_bench_random_input_interval(random_args(1024, 128, 0.1, 1));
  CHECK(in.low == 920);
  CHECK(in.high == 1126);
  // Ratio 0 (the default): exactly the lengths asked for.
  in = vllm_bench_random_input_interval(random_args(1024, 128, 0.0));
  out = vllm_bench_random_output_interval(random_args(1024, 128, 0.0));
  CHECK((in.low == 1024 && in.high == 1024 && out.low == 128 && out.high == 128));
  // Outputs never go below 1: output 0 -> [1, 1]; output 5 at ratio 0.5 -> [floor 2.5, ceil 7.5].
  out = vllm_bench_random_output_interval(random_args(10, 0, 0.5));
  CHECK((out.low == 1 && out.high == 1));
  out = vllm_bench_random_output_interval(random_args(10, 5, 0.5));
  CHECK((out.low == 2 && out.high == 8));

  // The drawn prompts: prefix 256 + 1 special + [921 - 1 ... ] own tokens; both ends of each
  // interval occur among 4000 draws of 207 values.
  VllmBenchServeArgs a = random_args(1024, 128, 0.1, 1);
  a.random_prefix_len = 256;
  a.num_prompts = 4000;
  const std::vector<VllmBenchPrompt> prompts = vllm_bench_prompts(a, "c", 7);
  REQUIRE(prompts.size() == 4000);
  std::int64_t lo = 1 << 30, hi = 0, out_lo = 1 << 30, out_hi = 0;
  for (const VllmBenchPrompt& p : prompts) {
    lo = std::min(lo, p.prompt_tokens);
    hi = std::max(hi, p.prompt_tokens);
    out_lo = std::min(out_lo, p.output_tokens);
    out_hi = std::max(out_hi, p.output_tokens);
  }
  CHECK(lo == 1 + 256 + 920);
  CHECK(hi == 1 + 256 + 1126);
  CHECK(out_lo == 115);
  CHECK(out_hi == 141);
}

TEST_CASE("vllm bench serve: the random prefix is shared by every request and nothing after it", "[workload][prefix]") {
  VllmBenchServeArgs a = random_args(300, 10, 0.0, 1);
  a.random_prefix_len = 256;
  a.num_prompts = 50;
  VllmBenchServeSource source(a, "c", 0, 1, 16);
  const Drive d = drive(source, 1);
  REQUIRE(d.sent.size() == 50);
  // BOS + 256 prefix tokens = 257: 16 whole blocks of 16 are common to all; the 17th holds
  // the prefix's last token and the request's own tokens.
  std::set<std::uint64_t> block16, block17;
  for (const RequestSpec& r : d.sent) {
    CHECK(r.prompt_tokens == 1 + 256 + 299);
    REQUIRE(r.block_hashes.size() == (1 + 256 + 299) / 16);
    CHECK(r.block_hashes[15] == d.sent[0].block_hashes[15]);
    block16.insert(r.block_hashes[15]);
    block17.insert(r.block_hashes[16]);
  }
  CHECK(block16.size() == 1);
  CHECK(block17.size() == 50);
}

TEST_CASE("vllm bench serve: prefix_repetition makes num_prefixes groups of num_prompts // num_prefixes", "[workload][prefix]") {
  VllmBenchServeArgs a;
  a.dataset = VllmBenchServeArgs::Dataset::prefix_repetition;
  a.prefix_repetition_num_prefixes = 4;
  a.prefix_repetition_prefix_len = 64;
  a.prefix_repetition_suffix_len = 32;
  a.prefix_repetition_output_len = 8;
  a.num_prompts = 83;  // 83 // 4 = 20 per prefix: 80 requests, as the tool sends
  const std::vector<VllmBenchPrompt> shuffled = vllm_bench_prompts(a, "c", 3);
  REQUIRE(shuffled.size() == 80);
  const auto first_block = [](const VllmBenchPrompt& p) { return chained_block_hashes(p.runs, 16).at(0); };
  std::map<std::uint64_t, int> uses;
  for (const VllmBenchPrompt& p : shuffled) {
    CHECK(p.prompt_tokens == 96);
    CHECK(p.output_tokens == 8);
    ++uses[first_block(p)];
    // 96 tokens = 6 blocks: 4 of the prefix, 2 of the suffix of its own.
    const std::vector<std::uint64_t> h = chained_block_hashes(p.runs, 16);
    CHECK(h.size() == 6);
  }
  REQUIRE(uses.size() == 4);
  for (const auto& [hash, count] : uses) CHECK(count == 20);
  // Shuffled: the first 20 are not all of one prefix (they would be with probability
  // 4 x (20! 60! / 80!) ~ 1e-18).
  std::set<std::uint64_t> first20;
  for (int i = 0; i < 20; ++i) first20.insert(first_block(shuffled[static_cast<std::size_t>(i)]));
  CHECK(first20.size() > 1);
  // --disable-shuffle: the tool's build order, prefix by prefix.
  a.disable_shuffle = true;
  const std::vector<VllmBenchPrompt> ordered = vllm_bench_prompts(a, "c", 3);
  for (int g = 0; g < 4; ++g)
    for (int j = 0; j < 20; ++j)
      CHECK(first_block(ordered[static_cast<std::size_t>(g * 20 + j)]) == first_block(ordered[static_cast<std::size_t>(g * 20)]));
  CHECK(first_block(ordered[0]) != first_block(ordered[20]));
}

TEST_CASE("vllm bench serve: send times follow get_request", "[workload]") {
  VllmBenchServeArgs a;
  Rng rng(5, "t");
  // Rate inf: everything at 0.
  for (double t : vllm_bench_send_offsets_s(a, 100, rng)) CHECK(t == 0);
  // Rate 8: the sum is rescaled so the last of 1000 goes at 1000 / 8 = 125 s.
  a.request_rate_per_s = 8;
  std::vector<double> t = vllm_bench_send_offsets_s(a, 1000, rng);
  CHECK(t.back() == Approx(125.0).epsilon(1e-12));
  CHECK(t.front() > 0);  // the first waits one gap too
  CHECK(std::is_sorted(t.begin(), t.end()));
  // Burstiness inf: evenly spaced, (i + 1) / rate.
  a.burstiness = std::numeric_limits<double>::infinity();
  t = vllm_bench_send_offsets_s(a, 10, rng);
  for (std::size_t i = 0; i < 10; ++i) CHECK(t[i] == Approx((static_cast<double>(i) + 1) / 8).epsilon(1e-12));
  // Gamma gaps of shape b have cv^2 = 1 / b (rescaling by one factor keeps it): within 5
  // standard errors of the sample variance of 40000 gaps (gamma: var k th^2, fourth
  // central moment 3 k (k + 2) th^4).
  for (const double b : {0.25, 1.0, 4.0}) {
    CAPTURE(b);
    a.burstiness = b;
    const std::size_t n = 40000;
    t = vllm_bench_send_offsets_s(a, n, rng);
    std::vector<double> gaps(n);
    for (std::size_t i = 0; i < n; ++i) gaps[i] = t[i] - (i ? t[i - 1] : 0.0);
    const auto m = moments_of(gaps);
    CHECK(m.mean == Approx(1.0 / 8).epsilon(1e-9));  // exactly 1/rate after the rescale
    // Normalised by the mean: shape b, scale 1/b.
    const double var = 1.0 / b, mu4 = 3 * b * (b + 2) / (b * b * b * b);
    CHECK(std::abs(m.variance / (m.mean * m.mean) - 1.0 / b) < variance_tolerance(var, mu4, n));
  }
  // Ramp-up, linear 1 -> 10 req/s over 10 requests: request i at rate 1 + i, evenly spaced
  // (burstiness inf), not rescaled: the last at 1 + 1/2 + ... + 1/10.
  a.request_rate_per_s.reset();
  a.burstiness = std::numeric_limits<double>::infinity();
  a.ramp_up = VllmBenchServeArgs::RampUp::linear;
  a.ramp_up_start_rps = 1;
  a.ramp_up_end_rps = 10;
  t = vllm_bench_send_offsets_s(a, 10, rng);
  double harmonic = 0;
  for (int k = 1; k <= 10; ++k) harmonic += 1.0 / k;
  CHECK(t.back() == Approx(harmonic).epsilon(1e-12));
  // Exponential 1 -> 100 over 3 requests: rates 1, 10, 100.
  a.ramp_up = VllmBenchServeArgs::RampUp::exponential;
  a.ramp_up_end_rps = 100;
  t = vllm_bench_send_offsets_s(a, 3, rng);
  CHECK(t[0] == Approx(1.0).epsilon(1e-12));
  CHECK(t[1] == Approx(1.1).epsilon(1e-12));
  CHECK(t[2] == Approx(1.11).epsilon(1e-12));
}

TEST_CASE("vllm bench serve: ready check then warm-ups then the run and max_concurrency never exceeded", "[workload]") {
  VllmBenchServeArgs a = random_args(100, 10, 0.0);
  a.num_prompts = 10;
  a.max_concurrency = 3;
  a.ready_check_timeout_s = 600;
  a.num_warmups = 2;
  VllmBenchServeSource source(a, "c", 0, 1, 16);
  CHECK(source.total_requests() == 1 + 2 + 10);
  CHECK(source.run_requests() == 10);
  const Tick s = 1'000'000'000;  // each request takes 1 s
  const Drive d = drive(source, s);
  REQUIRE(d.sent.size() == 13);
  CHECK(d.most_in_flight == 3);
  // Ready check alone at 0 (finished at 1 s); both warm-ups at 1 s (finished at 2 s); the
  // run at rate inf from 2 s in waves of 3 as requests finish.
  const std::vector<Tick> expected = {0, s, s, 2 * s, 2 * s, 2 * s, 3 * s, 3 * s, 3 * s, 4 * s, 4 * s, 4 * s, 5 * s};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(d.sent[i].arrival_ns == expected[i]);
  }
  // The ready check and the warm-ups send the run's first prompt.
  for (std::size_t i = 0; i < 3; ++i) CHECK(d.sent[i].block_hashes == d.sent[3].block_hashes);
  CHECK(d.sent[4].block_hashes != d.sent[3].block_hashes);

  // At rate 100 req/s with the cap 2 and 1 s service, the cap is what paces: never above 2.
  VllmBenchServeArgs b = random_args(100, 10, 0.0);
  b.num_prompts = 200;
  b.request_rate_per_s = 100;
  b.max_concurrency = 2;
  VllmBenchServeSource capped(b, "c", 0, 1, 16);
  const Drive dc = drive(capped, s);
  CHECK(dc.sent.size() == 200);
  CHECK(dc.most_in_flight == 2);
}

TEST_CASE("vllm bench serve: sharegpt keeps the tool's filter and order and oversampling", "[workload]") {
  // Rows: (prompt, output). Kept by is_valid_sequence: prompt 4..1024, output >= 4, sum <= 2048.
  const TempFile file("sharegpt_lengths.csv",
                      "num_prefill_tokens,num_decode_tokens\n"
                      "100,200\n"    // kept
                      "3,50\n"       // prompt too short
                      "50,3\n"       // output too short
                      "1025,10\n"    // prompt too long
                      "1000,1049\n"  // total 2049 too long
                      "1000,1048\n"  // kept (total 2048)
                      "4,4\n");      // kept
  VllmBenchServeArgs a;
  a.dataset = VllmBenchServeArgs::Dataset::sharegpt;
  a.lengths_path = file.path();
  a.disable_shuffle = true;
  a.num_prompts = 3;
  std::vector<VllmBenchPrompt> p = vllm_bench_prompts(a, "c", 1);
  REQUIRE(p.size() == 3);
  CHECK((p[0].prompt_tokens == 100 && p[0].output_tokens == 200));
  CHECK((p[1].prompt_tokens == 1000 && p[1].output_tokens == 1048));
  CHECK((p[2].prompt_tokens == 4 && p[2].output_tokens == 4));
  // Oversampled to 10 with repeats of the 3 kept prompts, the same content again.
  a.num_prompts = 10;
  p = vllm_bench_prompts(a, "c", 1);
  REQUIRE(p.size() == 10);
  for (std::size_t i = 3; i < 10; ++i) {
    const bool repeat = chained_block_hashes(p[i].runs, 4) == chained_block_hashes(p[0].runs, 4) ||
                        chained_block_hashes(p[i].runs, 4) == chained_block_hashes(p[1].runs, 4) ||
                        chained_block_hashes(p[i].runs, 4) == chained_block_hashes(p[2].runs, 4);
    CHECK(repeat);
  }
  // --no-oversample: only the 3.
  a.no_oversample = true;
  CHECK(vllm_bench_prompts(a, "c", 1).size() == 3);
  // --sharegpt-output-len replaces the outputs and lifts the output >= 4 check: rows 1, 3
  // (50, 3 -> 64), 5 and 6 (1000 + 64 = 1064 <= 2048) and 7 are kept.
  a.no_oversample = false;
  a.sharegpt_output_len = 64;
  a.num_prompts = 5;
  p = vllm_bench_prompts(a, "c", 1);
  REQUIRE(p.size() == 5);
  CHECK(p[1].prompt_tokens == 50);
  for (const VllmBenchPrompt& q : p) CHECK(q.output_tokens == 64);
}

}  // namespace servesim::vllm_bench_serve_source_test
