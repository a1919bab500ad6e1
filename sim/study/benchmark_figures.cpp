// Benchmark figures, one definition for measured and simulated requests.
#include "sim/study/benchmark_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/metrics/numpy_stats.h"

namespace servesim {
namespace {

void add_rows(std::vector<FigureComparison>& rows, const char* name, const std::optional<LatencyFigures>& measured,
              const std::optional<LatencyFigures>& simulated) {
  if (!measured || !simulated) return;
  const auto row = [&](const char* stat, double m, double s) {
    const double error = m != 0 ? s / m - 1 : std::numeric_limits<double>::quiet_NaN();
    rows.push_back({std::string(name) + "_" + stat + "_ms", m, s, error});
  };
  row("mean", measured->mean_ms, simulated->mean_ms);
  row("p50", measured->p50_ms, simulated->p50_ms);
  row("p90", measured->p90_ms, simulated->p90_ms);
  row("p99", measured->p99_ms, simulated->p99_ms);
}

}  // namespace

std::optional<LatencyFigures> latency_figures(std::vector<double> values_ms) {
  if (values_ms.empty()) return std::nullopt;
  std::sort(values_ms.begin(), values_ms.end());
  LatencyFigures f;
  f.samples = static_cast<std::int64_t>(values_ms.size());
  f.mean_ms = numpy_mean(values_ms);
  f.p50_ms = numpy_percentile(values_ms, 50);
  f.p90_ms = numpy_percentile(values_ms, 90);
  f.p99_ms = numpy_percentile(values_ms, 99);
  return f;
}

BenchmarkFigures benchmark_figures(const std::vector<RequestLatency>& requests, double span_s,
                                   std::optional<std::vector<double>> itl_gaps_ms) {
  std::vector<double> ttft, tpot, e2el;
  std::int64_t output_tokens = 0;
  for (const RequestLatency& r : requests) {
    output_tokens += r.output_tokens;
    if (r.ttft_ns >= 0) ttft.push_back(static_cast<double>(r.ttft_ns) / 1e6);
    if (r.e2el_ns >= 0) e2el.push_back(static_cast<double>(r.e2el_ns) / 1e6);
    if (r.ttft_ns >= 0 && r.e2el_ns >= 0 && r.output_tokens >= 2) {
      tpot.push_back(static_cast<double>(r.e2el_ns - r.ttft_ns) / 1e6 / static_cast<double>(r.output_tokens - 1));
    }
  }
  BenchmarkFigures f;
  f.completed = static_cast<std::int64_t>(requests.size());
  f.span_s = span_s;
  f.ttft = latency_figures(std::move(ttft));
  f.tpot = latency_figures(std::move(tpot));
  f.e2el = latency_figures(std::move(e2el));
  if (itl_gaps_ms) f.itl = latency_figures(std::move(*itl_gaps_ms));
  if (span_s > 0) {
    f.request_throughput_per_s = static_cast<double>(requests.size()) / span_s;
    f.output_throughput_per_s = static_cast<double>(output_tokens) / span_s;
  }
  return f;
}

std::vector<FigureComparison> compare_figures(const BenchmarkFigures& measured, const BenchmarkFigures& simulated) {
  std::vector<FigureComparison> rows;
  add_rows(rows, "ttft", measured.ttft, simulated.ttft);
  add_rows(rows, "itl", measured.itl, simulated.itl);
  add_rows(rows, "tpot", measured.tpot, simulated.tpot);
  add_rows(rows, "e2el", measured.e2el, simulated.e2el);
  if (measured.span_s > 0 && simulated.span_s > 0) {
    const auto row = [&](const char* name, double m, double s) {
      rows.push_back({name, m, s, m != 0 ? s / m - 1 : std::numeric_limits<double>::quiet_NaN()});
    };
    row("request_throughput", measured.request_throughput_per_s, simulated.request_throughput_per_s);
    row("output_throughput", measured.output_throughput_per_s, simulated.output_throughput_per_s);
  }
  return rows;
}

}  // namespace servesim
