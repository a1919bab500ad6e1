// `servesim calibrate`'s fitting code: the minimiser, recovery of known parameters from
// rows the roofline itself produced, the accuracy target on the real H200 measurements
// (fitted and held out), and the written profile reloading to the same predictions.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/hardware/calibration.h"
#include "sim/hardware/nelder_mead.h"
#include "sim/report/calibrated_hardware_writer.h"
#include "sim/scenario/measurements_csv.h"
#include "sim/scenario/model_loader.h"

namespace calibration_test {

using namespace servesim;

namespace {

const std::string kCsv = std::string(SERVESIM_SOURCE_DIR) + "/data/measurements/h200_llama3_8b_steps.csv";

std::string text_of(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void print_steps(const CalibrationResult& r, const char* title) {
  std::printf("\n%s\n", title);
  for (const auto& row : r.rows) {
    if (row.measurement.kind != MeasurementKind::step) continue;
    std::printf("  %-22s %10.3f %10.3f %+6.1f%% %s\n", row.measurement.label().c_str(),
                row.measurement.ms, row.predicted_ms, 100 * row.error,
                row.role == RowRole::fitted ? "fitted" : "held out");
  }
  std::printf("  fitted: %d rows, median %.1f%%, max %.1f%%\n", r.fitted_steps.rows,
              100 * r.fitted_steps.median_abs, 100 * r.fitted_steps.max_abs);
  if (r.held_out_steps.rows > 0) {
    std::printf("  held out: %d rows, median %.1f%%, max %.1f%%\n", r.held_out_steps.rows,
                100 * r.held_out_steps.median_abs, 100 * r.held_out_steps.max_abs);
  }
}

}  // namespace

TEST_CASE("nelder-mead: finds the minimum of the Rosenbrock valley at (1 - 1)", "[fidelity]") {
  const auto rosenbrock = [](const std::vector<double>& x) {
    return 100 * std::pow(x[1] - x[0] * x[0], 2) + std::pow(1 - x[0], 2);
  };
  NelderMeadResult r = nelder_mead(rosenbrock, {-1.2, 1.0}, 0.5, 5000, 1e-14);
  CHECK(r.x[0] == Approx(1.0).margin(1e-4));
  CHECK(r.x[1] == Approx(1.0).margin(1e-4));
  CHECK(r.value < 1e-8);
  // A quadratic bowl centred at (3, -2, 0.5).
  const auto bowl = [](const std::vector<double>& x) {
    return std::pow(x[0] - 3, 2) + 2 * std::pow(x[1] + 2, 2) + 5 * std::pow(x[2] - 0.5, 2);
  };
  r = nelder_mead(bowl, {0, 0, 0});
  CHECK(r.x[0] == Approx(3).margin(1e-4));
  CHECK(r.x[1] == Approx(-2).margin(1e-4));
  CHECK(r.x[2] == Approx(0.5).margin(1e-4));
}

TEST_CASE("calibrate: recovers known parameters from rows the roofline produced with them", "[fidelity]") {
  const ModelSpec model = load_model("llama-3-8b");
  HardwareSpec truth = load_hardware("h100-sxm");
  truth.gemm_efficiency = 0.72;
  truth.memory_efficiency = 0.83;
  truth.kernel_overhead_s = 4e-6;
  truth.attention_efficiency = 0.45;
  truth.attention_row_overhead_keys = 300;
  truth.decode_attention_efficiency = 0.9;
  truth.decode_attention_efficiency_many = 0.6;
  truth.decode_attention_half_seqs = 40;
  truth.elementwise_efficiency = 0.5;
  truth.layer_overhead_s = 20e-6;

  // The shapes of the H200 file, with times the true profile gives them.
  std::vector<Measurement> rows = read_measurements(kCsv);
  for (Measurement& m : rows) {
    if (m.kind != MeasurementKind::ceiling) m.ms = predict_ms(model, truth, m);
  }
  HardwareSpec start = load_hardware("h100-sxm");  // gemm 0.7, memory 0.7, ...
  const CalibrationResult r = calibrate(model, start, rows);
  const HardwareSpec& got = r.hardware;
  CHECK(got.gemm_efficiency == Approx(0.72).epsilon(0.01));
  CHECK(got.memory_efficiency == Approx(0.83).epsilon(0.01));
  CHECK(got.kernel_overhead_s == Approx(4e-6).epsilon(0.02));
  CHECK(got.attention_efficiency == Approx(0.45).epsilon(0.01));
  CHECK(got.attention_row_overhead_keys == Approx(300).epsilon(0.03));
  CHECK(got.decode_attention_efficiency == Approx(0.9).epsilon(0.03));
  CHECK(got.decode_attention_efficiency_many == Approx(0.6).epsilon(0.03));
  CHECK(got.decode_attention_half_seqs == Approx(40).epsilon(0.05));
  CHECK(got.elementwise_efficiency == Approx(0.5).epsilon(0.03));
  CHECK(got.layer_overhead_s == Approx(20e-6).epsilon(0.05));
  CHECK(r.fitted_steps.max_abs < 0.002);
  // Datasheet figures and unfitted parameters are kept.
  CHECK(got.peak_flops_bf16 == start.peak_flops_bf16);
  CHECK(got.comm_efficiency == start.comm_efficiency);
  CHECK(got.step_overhead_s == start.step_overhead_s);
  CHECK(r.stages.size() == 3);
}

TEST_CASE("calibrate: the H200 measurements fit within 3% median and 10% max - and the written profile reloads to the same predictions", "[fidelity]") {
  const ModelSpec model = load_model("llama-3-8b");
  const std::vector<Measurement> rows = read_measurements(kCsv);
  const CalibrationResult r = calibrate(model, load_hardware("h200"), rows);
  print_steps(r, "calibrate on all 23 H200 steps");
  CHECK(r.fitted_steps.rows == 23);
  CHECK(r.held_out_steps.rows == 0);
  CHECK(r.fitted_steps.median_abs <= 0.03);
  CHECK(r.fitted_steps.max_abs <= 0.10);
  // The kernel rows pin the per-kernel parameters to physical values: the GEMM
  // efficiency near the 756 TFLOP/s ceiling row (0.76 of peak) and weight streaming near
  // the 4.18 TB/s copy row (0.87).
  CHECK(r.hardware.gemm_efficiency == Approx(0.80).margin(0.05));
  CHECK(r.hardware.memory_efficiency == Approx(0.87).margin(0.05));
  CHECK(r.at_bounds.empty());

  // Write, reload through the loader, predict again: the YAML's 4 significant digits
  // move no step by more than 0.1%.
  const auto path = std::filesystem::temp_directory_path() /
                    ("servesim-calibrated-" + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream out(path);
    write_calibrated_hardware(out, text_of(hardware_profile_path("h200")), r,
                              {"test", "h200_llama3_8b_steps.csv", "llama-3-8b"});
  }
  const HardwareSpec reloaded = load_hardware(path.string());
  const std::string yaml = text_of(path.string());
  std::filesystem::remove(path);
  CHECK(reloaded.memory_bandwidth_bytes_per_s == 4.8e12);  // datasheet lines kept
  CHECK(yaml.find("# datasheet GPU memory bandwidth 4.8 TB/s") != std::string::npos);
  CHECK(yaml.find("#   prefill 128 ") != std::string::npos);  // rows in the comments
  std::vector<double> errors;
  for (const auto& row : r.rows) {
    if (row.measurement.kind != MeasurementKind::step) continue;
    const double again = predict_ms(model, reloaded, row.measurement);
    CHECK(again == Approx(row.predicted_ms).epsilon(0.001));
    errors.push_back((again - row.measurement.ms) / row.measurement.ms);
  }
  const ErrorSummary s = summarize_errors(errors);
  CHECK(s.median_abs <= 0.03);
  CHECK(s.max_abs <= 0.10);
}

TEST_CASE("calibrate: fitted on short prompts and contexts - predicts the held-out long ones within 5% median and 12% max", "[fidelity]") {
  const ModelSpec model = load_model("llama-3-8b");
  CalibrationOptions options;
  options.fit_step = [](const Measurement& m) {
    return m.prefill_tokens <= 8192 && m.decode_context <= 4096;
  };
  const CalibrationResult r = calibrate(model, load_hardware("h200"), read_measurements(kCsv), options);
  print_steps(r, "calibrate on prefill <= 8192 and decode context <= 4096; the rest held out");
  // Held out: prefill 16384 and 32768, decode 1, 4 and 16 sequences at 16384 context.
  CHECK(r.fitted_steps.rows == 18);
  CHECK(r.held_out_steps.rows == 5);
  CHECK(r.fitted_steps.median_abs <= 0.04);
  CHECK(r.fitted_steps.max_abs <= 0.10);
  CHECK(r.held_out_steps.median_abs <= 0.05);
  CHECK(r.held_out_steps.max_abs <= 0.12);
}

TEST_CASE("calibrate: a file with no whole steps to fit is refused", "[fidelity]") {
  std::vector<Measurement> rows = read_measurements(kCsv);
  CalibrationOptions none;
  none.fit_step = [](const Measurement&) { return false; };
  CHECK_THROWS_WITH(calibrate(load_model("llama-3-8b"), load_hardware("h200"), rows, none),
                    Catch::Contains("no prefill, decode or mixed rows"));
}

}  // namespace calibration_test
