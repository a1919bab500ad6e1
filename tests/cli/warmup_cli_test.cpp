// `warmup:` end to end: a burst of slow requests at the start is simulated but left out of
// summary.json, whose figures must then equal those of the later requests alone, worked
// out here from the same run's requests.csv.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "cli/cli_test_util.h"
#include "cli/requests_csv_rows.h"

namespace warmup_cli_test {

using namespace servesim::testing;

namespace {

// 32 requests 1 ms apart (a burst: they queue behind each other's prefills), 5 s of
// nothing while they drain, then 40 requests 0.5 s apart that each find the replica idle.
const char* kWarmupScenario = R"(name: warmup
seed: 1
WARMUP
workload:
  - class: chat
    arrival:
      process: constant
      stages:
        - {duration: 32ms, rate: 1000}
        - {duration: 5s, rate: 0}
        - {duration: 20s, rate: 2}
    input: {fixed: 2000}
    output: {fixed: 50}
cluster:
  pools:
    - name: main
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_batched_tokens: 4096}
)";

std::string with_warmup(const std::string& warmup) {
  std::string text = kWarmupScenario;
  text.replace(text.find("WARMUP"), 6, warmup);
  return text;
}

struct Run {
  nlohmann::json summary;
  std::string csv;
  std::string console;
};

Run run_scenario(const TempDir& dir, const std::string& name, const std::string& warmup) {
  const auto path = dir.write(name + ".yaml", with_warmup(warmup));
  const auto out = dir.path / name;
  const CliResult r = run_cli("run " + path.string() + " --out " + out.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return {nlohmann::json::parse(read_file(out / "summary.json")), read_file(out / "requests.csv"), r.output};
}

double ms(double ns) { return ns * 1e-6; }

}  // namespace

TEST_CASE("warmup: the summaries hold the requests after the warm-up only as requests.csv says", "[cli][metrics]") {
  TempDir dir("warmup");
  const Run warm = run_scenario(dir, "warm", "warmup: {requests: 32}");
  const std::vector<CsvRequest> rows = parse_requests_csv(warm.csv);
  REQUIRE(rows.size() == 72);  // requests.csv lists every request, warm-up ones too

  // Split by the rule: ids are arrival indexes, the first 32 are the warm-up.
  std::vector<CsvRequest> measured, warmup;
  for (const CsvRequest& r : rows) (r.id < 32 ? warmup : measured).push_back(r);
  REQUIRE(warmup.size() == 32);
  REQUIRE(measured.size() == 40);
  std::int64_t first_measured_ns = INT64_MAX, warmup_done_ns = 0, end_ns = 0;
  for (const CsvRequest& r : measured) first_measured_ns = std::min(first_measured_ns, r.arrival_ns);
  for (const CsvRequest& r : warmup) warmup_done_ns = std::max(warmup_done_ns, r.arrival_ns + r.e2el_ns);
  for (const CsvRequest& r : rows) end_ns = std::max(end_ns, r.arrival_ns + r.e2el_ns);
  CHECK(first_measured_ns == 5'532'000'000);  // 32 ms + 5 s + one gap of 0.5 s
  // The test's premise: the burst is slow, and over before the measured requests come, so
  // every inter-token gap after the warm-up belongs to a measured request.
  REQUIRE(warmup_done_ns < first_measured_ns);

  double ttft_sum = 0, e2el_sum = 0, tpot_sum = 0, decode_ns = 0, gaps = 0, warm_ttft_sum = 0;
  std::int64_t input = 0, output = 0;
  for (const CsvRequest& r : measured) {
    REQUIRE(r.outcome == "completed");
    ttft_sum += static_cast<double>(r.ttft_ns);
    e2el_sum += static_cast<double>(r.e2el_ns);
    tpot_sum += static_cast<double>(r.tpot_ns);
    decode_ns += static_cast<double>(r.e2el_ns - r.ttft_ns);  // finish - first token
    gaps += static_cast<double>(r.output_tokens_done - 1);
    input += r.prompt_tokens;
    output += r.output_tokens_done;
  }
  for (const CsvRequest& r : warmup) warm_ttft_sum += static_cast<double>(r.ttft_ns);
  // The burst's requests waited: their mean TTFT is several times the measured ones'.
  REQUIRE(warm_ttft_sum / 32 > 3 * ttft_sum / 40);

  const nlohmann::json& s = warm.summary;
  CHECK(s["warmup_excluded"] == 32);
  CHECK(s["completed"] == 40);
  CHECK(s["completed"].get<int>() + s["rejected"].get<int>() + s["unfinished"].get<int>() +
            s["warmup_excluded"].get<int>() ==
        72);
  CHECK(s["total_input_tokens"] == input);
  CHECK(s["total_output_tokens"] == output);
  CHECK(s["mean_ttft_ms"].get<double>() == Approx(ms(ttft_sum / 40)).epsilon(1e-12));
  CHECK(s["mean_e2el_ms"].get<double>() == Approx(ms(e2el_sum / 40)).epsilon(1e-12));
  CHECK(s["mean_tpot_ms"].get<double>() == Approx(ms(tpot_sum / 40)).epsilon(1e-12));
  CHECK(s["mean_itl_ms"].get<double>() == Approx(ms(decode_ns / gaps)).epsilon(1e-12));
  // Throughputs divide by the span from the first measured arrival to the end.
  const double span_s = static_cast<double>(end_ns - first_measured_ns) * 1e-9;
  CHECK(s["duration"].get<double>() == Approx(span_s).epsilon(1e-12));
  CHECK(s["request_throughput"].get<double>() == Approx(40 / span_s).epsilon(1e-12));
  CHECK(s["output_throughput"].get<double>() == Approx(static_cast<double>(output) / span_s).epsilon(1e-12));
  CHECK(s["classes"]["chat"]["warmup_excluded"] == 32);
  CHECK(s["pools"]["main"]["warmup_excluded"] == 32);
  CHECK(s["pools"]["main"]["completed"] == 40);
  CHECK(warm.console.find("warm-up: 32 requests left out") != std::string::npos);


  // A warm-up by time that covers the same arrivals gives the same summary.
  const Run timed = run_scenario(dir, "timed", "warmup: {time: 5s}");
  auto figures = [](nlohmann::json summary) {  // every figure and pool; each names its own file
    summary["deployment"].erase("scenario");
    return summary;
  };
  CHECK(figures(timed.summary) == figures(warm.summary));
  // Without a warm-up the same requests are simulated, and all of them are counted.
  const Run cold = run_scenario(dir, "cold", "");
  CHECK(cold.csv == warm.csv);  // the warm-up changes what is reported, not what happens
  CHECK(cold.summary["completed"] == 72);
  CHECK_FALSE(cold.summary.contains("warmup_excluded"));
  CHECK(cold.summary["mean_ttft_ms"].get<double>() > s["mean_ttft_ms"].get<double>());
}

TEST_CASE("warmup: bad warm-ups are refused with the key and exit 2", "[cli][metrics]") {
  TempDir dir("warmup-bad");
  struct Bad {
    const char* warmup;
    const char* text;  // "file:line:" is bad.yaml:3 (the warm-up's line), or bad.yaml:4 after a stop line
  };
  for (const Bad& bad : {Bad{"warmup: {requests: 0}", "bad.yaml:3:20: warmup.requests: must be >= 1"},
                         Bad{"warmup: {}", "bad.yaml:3:9: warmup: give 'requests'"},
                         Bad{"warmup: {request: 5}", "bad.yaml:3:10: warmup.request: unknown key 'request'; did you mean 'requests'?"},
                         Bad{"warmup: {time: -1s}", "bad.yaml:3:"},
                         Bad{"stop: {requests: 10}\nwarmup: {requests: 10}", "bad.yaml:4:20: warmup.requests: the warm-up covers"},
                         Bad{"stop: {time: 10s}\nwarmup: {time: 10s}", "bad.yaml:4:16: warmup.time: the warm-up lasts"}}) {
    CAPTURE(bad.warmup);
    const auto path = dir.write("bad.yaml", with_warmup(bad.warmup));
    const CliResult r = run_cli("validate " + path.string());
    CAPTURE(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(bad.text) != std::string::npos);
  }
}

}  // namespace warmup_cli_test
