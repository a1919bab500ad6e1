// The roofline with the calibrated H200 profile (configs/hardware/h200.yaml, written by
// `servesim calibrate`) against every whole-model step measured on an H200
// (data/measurements/h200_llama3_8b_steps.csv: Llama-3-8B shape, bf16, one GPU). The
// issue's accuracy target: median |error| <= 3% and max <= 10% over these 23 rows.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/hardware/calibration.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/io/measurements_csv.h"
#include "sim/io/model_loader.h"

using namespace servesim;

TEST_CASE("roofline: the calibrated H200 profile predicts every measured Llama-3-8B prefill and decode step within 3% median - 10% max", "[hardware][fidelity]") {
  const auto rows = read_measurements(std::string(SERVESIM_SOURCE_DIR) +
                                      "/data/measurements/h200_llama3_8b_steps.csv");
  const auto cm = make_cost_model(CostModelSpec{}, load_model("llama-3-8b"), load_hardware("h200"),
                                  Deployment{});
  std::vector<double> errors;
  std::printf("\nH200 Llama-3-8B: roofline vs measured\n%-20s %12s %12s %8s\n", "step",
              "measured ms", "roofline ms", "error");
  for (const Measurement& r : rows) {
    if (r.kind != MeasurementKind::step) continue;
    BatchShape b;
    if (r.prefill_tokens > 0) b.prefills.push_back({r.prefill_tokens, r.past_tokens, true});
    b.decode_seqs = r.decode_batch;
    b.decode_context_sum = r.decode_batch * r.decode_context;
    const double predicted_ms = ms_from_ticks(cm->step_cost(b).total_ns);
    const double error = (predicted_ms - r.ms) / r.ms;
    errors.push_back(error);
    std::printf("%-20s %12.3f %12.3f %+7.1f%%\n", r.label().c_str(), r.ms, predicted_ms, 100 * error);
  }
  // 8 prefill rows and 15 decode rows in the file.
  REQUIRE(errors.size() == 23);
  const ErrorSummary s = summarize_errors(errors);
  std::printf("median |error| %.1f%%, max |error| %.1f%%\n", 100 * s.median_abs, 100 * s.max_abs);
  CHECK(s.median_abs <= 0.03);
  CHECK(s.max_abs <= 0.10);
}
