// summary.json: fixed key order, integer counts, exact doubles, byte-identical output.
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/metrics/recorder.h"
#include "sim/report/summary_writer.h"

namespace summary_writer_test {

using namespace servesim;

namespace {

RunSummary small_run() {
  MetricsRecorder recorder({"chat", "batch"}, {"main"});
  RequestRecord r;
  r.id = 1;
  r.class_index = 0;
  r.pool_index = 0;
  r.arrival_ns = 0;
  r.first_scheduled_ns = 5 * kNsPerMs;
  r.first_token_ns = 120 * kNsPerMs;
  r.finish_ns = 520 * kNsPerMs;
  r.prompt_tokens = 1000;
  r.output_tokens = r.output_tokens_done = 5;
  r.cached_prompt_tokens = 250;
  recorder.record_itl(0, 0, 100 * kNsPerMs, 4);
  recorder.record_request(r);
  RequestRecord rejected;
  rejected.id = 2;
  rejected.class_index = 1;
  rejected.outcome = Outcome::rejected;
  rejected.reject_reason = "queue_full";
  recorder.record_request(rejected);
  return recorder.summarize(2 * kNsPerSec);
}

std::string as_text(const RunSummary& summary) {
  std::ostringstream out;
  write_summary_json(summary, out);
  return out.str();
}

}  // namespace

TEST_CASE("summary json: keys follow the block order - then classes and pools", "[metrics]") {
  const RunSummary summary = small_run();
  const nlohmann::ordered_json json = summary_to_json(summary);
  std::vector<std::string> expected;
  for (const auto& field : summary.overall.fields) {
    expected.push_back(field.first);
    if (field.first == "rejected") expected.push_back("rejected_reasons");
  }
  for (const auto& group : summary.overall.objects) expected.push_back(group.name);  // after every field
  CHECK(expected[expected.size() - 2] == "ttft_attribution");
  CHECK(expected.back() == "itl_attribution");
  expected.push_back("classes");
  expected.push_back("pools");
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  CHECK(keys == expected);
  CHECK(keys.front() == "completed");
  CHECK(keys.back() == "pools");

  std::vector<std::string> class_keys;
  for (const auto& item : json["classes"].items()) class_keys.push_back(item.key());
  CHECK(class_keys == std::vector<std::string>{"chat", "batch"});  // scenario order, not sorted
  CHECK(json["pools"].contains("main"));
  CHECK(json["classes"]["batch"]["rejected_reasons"]["queue_full"] == 1);
  CHECK(json["rejected_reasons"]["queue_full"] == 1);
  CHECK(json["classes"]["chat"]["rejected_reasons"].empty());
}

TEST_CASE("summary json: counts are integers and values read back exactly", "[metrics]") {
  const RunSummary summary = small_run();
  const std::string text = as_text(summary);
  CHECK(text.find("\"completed\": 1,") != std::string::npos);
  CHECK(text.find("\"total_input_tokens\": 1000,") != std::string::npos);
  CHECK(text.find("\"rejected\": 1,") != std::string::npos);
  CHECK(text.find("\"duration\": 2.0,") != std::string::npos);
  CHECK(text.find("\"request_throughput\": 0.5,") != std::string::npos);
  CHECK(text.find("\"prefix_cache_hit_rate\": 0.25,") != std::string::npos);
  CHECK(text.back() == '\n');

  const auto parsed = nlohmann::json::parse(text);
  CHECK(parsed["completed"].is_number_integer());
  CHECK(parsed["unfinished"].is_number_integer());
  CHECK(parsed["mean_ttft_ms"].is_number_float());
  for (const auto& [name, value] : summary.overall.fields) {
    INFO(name);
    CHECK(parsed[name].get<double>() == value);  // shortest round-trip text: no loss
  }
  CHECK(parsed["mean_ttft_ms"].get<double>() == Approx(120.0).epsilon(1e-12));
  CHECK(parsed["mean_tpot_ms"].get<double>() == Approx(100.0).epsilon(1e-12));
}

TEST_CASE("summary json: equal runs give byte-identical text", "[metrics]") {
  const std::string first = as_text(small_run());
  const std::string second = as_text(small_run());
  CHECK(first == second);
  // And a different run does not.
  RunSummary changed = small_run();
  changed.overall.set("mean_ttft_ms", 121.0);
  CHECK(as_text(changed) != first);
}

TEST_CASE("summary json: a non-finite value becomes null rather than invalid JSON", "[metrics]") {
  RunSummary summary;
  summary.overall.set("broken", std::numeric_limits<double>::quiet_NaN());
  summary.overall.set_count("rejected", 0);
  const std::string text = as_text(summary);
  const auto parsed = nlohmann::json::parse(text);
  CHECK(parsed["broken"].is_null());
  CHECK(parsed["rejected_reasons"].is_object());
  CHECK(parsed["classes"].is_object());
}

}  // namespace summary_writer_test
