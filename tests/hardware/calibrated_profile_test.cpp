// A hardware profile `servesim calibrate` fitted to measured steps prices the steps of the
// pools that name it by its fitted roofline: the GPU's kernel tables, the default for a
// datasheet profile, step aside unless the scenario (or `step --cost-model`) names them.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "sim/hardware/calibration.h"
#include "sim/report/calibrated_hardware_writer.h"
#include "cli/cli_test_util.h"
#include "sim/scenario/measurements_csv.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/step_study.h"

namespace calibrated_profile_test {

using namespace servesim;

namespace {

const std::string kCsv = std::string(SERVESIM_SOURCE_DIR) + "/data/measurements/h200_llama3_8b_steps.csv";

// Decode attention's fraction of the bandwidth for `seqs` sequences, written out from
// docs/cost-model.md section 2 (e(B) = e_many + (e_few - e_many) / (1 + (B / B_half)^4);
// 0 efficiencies fall back to memory_efficiency, then to the few-sequence value).
double kv_efficiency_by_hand(const HardwareSpec& hw, double seqs) {
  const double few = hw.decode_attention_efficiency > 0 ? hw.decode_attention_efficiency : hw.memory_efficiency;
  const double many = hw.decode_attention_efficiency_many > 0 ? hw.decode_attention_efficiency_many : few;
  if (!(hw.decode_attention_half_seqs > 0)) return few;
  return many + (few - many) / (1 + std::pow(seqs / hw.decode_attention_half_seqs, 4));
}

}  // namespace

TEST_CASE("calibrate: a profile fitted to measured steps prices steps by its fitted roofline", "[fidelity][calibration]") {
  const ModelSpec model = load_model("llama-3-8b");
  const CalibrationResult fit = calibrate(model, load_hardware("h200"), read_measurements(kCsv));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("servesim-calibrated-prices-" + std::to_string(::getpid()) + ".yaml"))
                               .string();
  {
    std::ofstream out(path);
    write_calibrated_hardware(out, servesim::testing::read_file(hardware_profile_path("h200")), fit, {"test", "my_steps.csv", "llama-3-8b"});
  }
  const HardwareSpec hw = load_hardware(path);
  CHECK(hw.calibrated_from == "my_steps.csv");
  CHECK(hw.kernel_tables == "h200_sxm");  // kept: an explicit cost_model: kernels still reads them
  REQUIRE(hw.memory_bandwidth_bytes_per_s == 4.8e12);

  // One sequence decoding over 1,024 and over 2,048 cached tokens: only decode attention's
  // KV read differs, by 1,024 tokens x 32 layers x (K and V) x 8 KV heads x 128 x 2 bytes
  // = 134,217,728 bytes (models/llama-3-8b.yaml), streamed at 4.8 TB/s x e(1).
  StepRequest request;
  request.model = "llama-3-8b";
  request.hardware = path;
  request.batch.decode_seqs = 1;
  request.batch.decode_context_sum = 1024;
  const StepStudy short_context = price_step(request);
  request.batch.decode_context_sum = 2048;
  const StepStudy long_context = price_step(request);
  CHECK(short_context.cost_model.rfind("roofline", 0) == 0);
  const double kv_bytes = 1024.0 * 32 * 2 * 8 * 128 * 2;
  const double fitted_ns = kv_bytes / (4.8e12 * kv_efficiency_by_hand(hw, 1)) * 1e9;
  INFO("fitted e(1) = " << kv_efficiency_by_hand(hw, 1));
  // Each part of a step is rounded to whole nanoseconds.
  CHECK(static_cast<double>(long_context.cost.total_ns - short_context.cost.total_ns) == Approx(fitted_ns).margin(3));
  // The datasheet profile's e(1) is another figure, so the difference is the fit's.
  const double stock_ns = kv_bytes / (4.8e12 * kv_efficiency_by_hand(load_hardware("h200"), 1)) * 1e9;
  CHECK(std::fabs(stock_ns - fitted_ns) > 0.02 * fitted_ns);

  // The same step on the datasheet profile goes to the kernel tables; on the calibrated
  // one, asking for them by name still gets them.
  request.hardware = "h200";
  CHECK(price_step(request).cost_model.rfind("kernels", 0) == 0);
  request.hardware = path;
  request.cost_model = "kernels";
  const StepStudy asked = price_step(request);
  CHECK(asked.cost_model.rfind("kernels", 0) == 0);
  CHECK(asked.cost.total_ns != long_context.cost.total_ns);

  // A scenario pool on the profile: the roofline, and validate's reason names the file.
  const Scenario s = load_scenario(std::string(SERVESIM_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                                   {"cluster.pools.0.hardware=" + path});
  const CostModelSpec& chosen = s.cluster.pools.front().cost_model;
  CHECK(chosen.kind == "roofline");
  CHECK(chosen.why.find("calibrated to measured steps (my_steps.csv)") != std::string::npos);
  const Scenario named = load_scenario(std::string(SERVESIM_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                                       {"cluster.pools.0.hardware=" + path, "cluster.pools.0.cost_model=kernels"});
  CHECK(named.cluster.pools.front().cost_model.kind == "kernels");
  std::filesystem::remove(path);
}

}  // namespace calibrated_profile_test
