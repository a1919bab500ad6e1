#pragma once
// The figures a serving benchmark reports, computed the same way for a real run (from its
// file) and for servesim's replay of it (from the simulated requests), so that the two
// sides of a comparison differ only in what was measured, never in how it was summarised.
// Percentiles interpolate linearly between order statistics, as numpy's default does in
// vllm bench serve; TPOT is vLLM's (e2el - ttft) / (output tokens - 1), over requests with
// at least two output tokens.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace servesim {

struct LatencyFigures {
  double mean_ms = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  std::int64_t samples = 0;
};

struct BenchmarkFigures {
  std::optional<LatencyFigures> ttft;
  std::optional<LatencyFigures> itl;   // every gap between consecutive tokens
  std::optional<LatencyFigures> tpot;
  std::optional<LatencyFigures> e2el;
  double request_throughput_per_s = 0;  // completed requests over the span
  double output_throughput_per_s = 0;   // output tokens of completed requests over the span
  double span_s = 0;                    // first send to last completion
  std::int64_t completed = 0;
};

// One completed request's latencies, in ns (ttft -1 when not measured).
struct RequestLatency {
  std::int64_t ttft_ns = -1;
  std::int64_t e2el_ns = -1;
  std::int64_t output_tokens = 0;
};

// Mean and percentiles of `values_ms` (linear interpolation); nullopt when empty.
std::optional<LatencyFigures> latency_figures(std::vector<double> values_ms);

// TTFT, TPOT and E2E figures of `requests`, their throughputs over `span_s` (0: none),
// and ITL from `itl_gaps_ms` when given (nullopt: not measured).
BenchmarkFigures benchmark_figures(const std::vector<RequestLatency>& requests, double span_s,
                                   std::optional<std::vector<double>> itl_gaps_ms);

// One row of a comparison: a figure's name ("ttft_mean_ms"), the real and the simulated
// value, and the signed error (simulated / measured - 1; NaN when measured is 0).
struct FigureComparison {
  std::string figure;
  double measured = 0;
  double simulated = 0;
  double error = 0;
};

// Every figure both sides have, in a fixed order: ttft, itl, tpot, e2el (mean, p50, p90,
// p99 each), then request and output throughput.
std::vector<FigureComparison> compare_figures(const BenchmarkFigures& measured, const BenchmarkFigures& simulated);

}  // namespace servesim
