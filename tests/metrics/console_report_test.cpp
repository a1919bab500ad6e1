// The console table: one row per class, an overall row, the numbers formatted as stated.
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/report/console_report.h"

namespace console_report_test {

using namespace servesim;

TEST_CASE("console report: prints a row per class and overall with rounded figures", "[metrics]") {
  RunSummary summary;
  auto fill = [](SummaryBlock& block, int completed, double ttft_p50) {
    block.set_count("completed", completed);
    block.set("duration", 10.0);
    block.set("request_throughput", completed / 10.0);
    block.set("output_throughput", completed * 100 / 10.0);
    block.set("p50_ttft_ms", ttft_p50);
    block.set("prefix_cache_hit_rate", 0.4567);
    block.set_count("rejected", 0);
  };
  fill(summary.overall, 30, 123.456);
  summary.classes.emplace_back("interactive", SummaryBlock{});
  fill(summary.classes.back().second, 10, 99.94);
  summary.classes.emplace_back("batch", SummaryBlock{});
  fill(summary.classes.back().second, 20, 140.0);
  std::ostringstream out;
  print_console_report(summary, out);
  const std::string text = out.str();
  INFO(text);
  CHECK(text.find("simulated duration 10.000 s") != std::string::npos);
  CHECK(text.find("interactive") < text.find("batch"));
  CHECK(text.find("batch") < text.find("overall"));
  CHECK(text.find("123.5") != std::string::npos);  // overall TTFT p50
  CHECK(text.find("99.9") != std::string::npos);
  CHECK(text.find("3.00") != std::string::npos);   // overall req/s
  CHECK(text.find("45.7") != std::string::npos);   // prefix hit in %
  CHECK(text.find("pool") == std::string::npos);   // no pools given, no pool table
}

TEST_CASE("console report: the SLO verdict keeps digits until a miss reads as one - and adds the SLO's column",
          "[metrics][slo]") {
  RunSummary summary;
  SummaryBlock block;
  block.set_count("completed", 10);
  block.set("duration", 10.0);
  block.set("p99_ttft_ms", 1000.4);
  block.set("p99_tpot_ms", 31.25);
  block.set_count("rejected", 2);
  block.set_count("unfinished", 0);
  // 1000.4 ms against 1 s: at four digits both read "1 s".
  block.slo_verdict = {{"ttft_p99", "p99_ttft_ms", 1000, 1000.4, false}, {"tpot_p99", "p99_tpot_ms", 50, 31.25, true}};
  summary.classes.emplace_back("chat", block);
  summary.overall = block;
  summary.overall.slo_verdict.clear();
  std::ostringstream out;
  print_console_report(summary, out);
  const std::string text = out.str();
  INFO(text);
  CHECK(text.find("SLO: missed: ttft p99 1.0004 s > 1 s (met: tpot p99 31.25 ms <= 50 ms); the figures are over "
                  "its 10 completed requests, not its 2 rejected and 0 unfinished\n") != std::string::npos);
  // TPOT p99 is no fixed column: the SLO on it adds one, with its figure in every row.
  CHECK(text.find("TPOT p99") != std::string::npos);
  CHECK(text.find("31.25") < text.find("SLO:"));
}

TEST_CASE("console report: a price per unit of nothing is - not $0 (prefill-only run - no prefix hits)",
          "[metrics][cost]") {
  RunSummary summary;
  SummaryBlock& all = summary.overall;
  all.set_count("completed", 4);
  all.set("duration", 2.0);
  // $0.002 of prefill work over 2,000 uncached prompt tokens: $1 per 1M; nothing cached, no
  // output token, so summary.json's 0 for those two prices is a price of nothing.
  all.set("cost_usd", 0.002);
  all.set("cost_per_1m_input_tokens", 1.0);
  all.set("cost_per_1m_cached_input_tokens", 0.0);
  all.set("cost_per_1m_output_tokens", 0.0);
  all.set("cost_per_request", 0.0005);
  all.set_count("uncached_input_tokens", 2000);
  all.set_count("cached_input_tokens", 0);
  all.set_count("total_output_tokens", 0);
  std::ostringstream out;
  print_console_report(summary, out);
  INFO(out.str());
  CHECK(out.str().find("cost: $1.0000 per 1M input tokens, - per 1M cached, - per 1M output; $0.000500 per request\n") !=
        std::string::npos);
}

}  // namespace console_report_test
