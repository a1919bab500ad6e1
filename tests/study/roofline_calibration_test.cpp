// The roofline calibration study: what it starts from, what it records of the request, and
// how it refuses a kernel-table set that is not there.
#include <catch2/catch.hpp>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/study/roofline_calibration.h"

namespace roofline_calibration_test {

using namespace servesim;

TEST_CASE("roofline calibration: measured steps start from the profile's own text and record the command",
          "[study][calibrate]") {
  MeasuredFitRequest request;
  request.hardware = "h200";
  request.model = "llama-3-8b";
  const std::string source = SERVESIM_SOURCE_DIR;
  request.measurements_path = source + "/data/measurements/h200_llama3_8b_steps.csv";
  request.fit_max_prefill_tokens = 1000;
  const MeasuredFitStudy study = calibrate_to_measurements(request);
  CHECK(study.profile_text == servesim::testing::read_file(source + "/configs/hardware/h200.yaml"));
  CHECK(study.command ==
        "servesim calibrate --hardware h200 --model llama-3-8b --measurements " + source +
            "/data/measurements/h200_llama3_8b_steps.csv --fit-max-prefill 1000");
  CHECK(study.model_name == "llama-3-8b");
  // Prefills of more than 1000 tokens are held out: predicted, not fitted.
  int held_out = 0;
  for (const CalibratedRow& row : study.result.rows) {
    if (row.measurement.kind != MeasurementKind::step) continue;
    const bool long_prefill = row.measurement.prefill_tokens > 1000;
    CHECK((row.role == RowRole::held_out) == long_prefill);
    held_out += long_prefill;
  }
  CHECK(held_out > 0);
}

TEST_CASE("roofline calibration: a kernel-table set that is not there is a ConfigError on --from-kernels",
          "[study][calibrate]") {
  try {
    calibrate_to_kernel_tables({"nope/none", "h100-sxm"});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.file().empty());
    CHECK(e.key() == "--from-kernels");
    CHECK(e.message() ==
          "no kernel-table set 'nope/none' (a folder, or GPU/ENGINE-VERSION under data/kernels/, such as "
          "h100_sxm/vllm-0.14.0)");
  }
}

}  // namespace roofline_calibration_test
