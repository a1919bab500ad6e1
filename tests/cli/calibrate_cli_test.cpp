// `servesim calibrate` as a user runs it: writes a profile that loads, re-running on its
// own output gives the same file, and bad usage exits 2 with a message.
#include <catch2/catch.hpp>

#include <string>

#include "cli/cli_test_util.h"
#include "sim/scenario/model_loader.h"

namespace calibrate_cli_test {

using servesim::testing::read_file;
using servesim::testing::run_cli;

TEST_CASE("calibrate: writes a profile that loads - with the fit in its comments - and is idempotent", "[fidelity]") {
  servesim::testing::TempDir dir("calibrate");
  const std::string out1 = (dir.path / "h200-a.yaml").string();
  const std::string out2 = (dir.path / "h200-b.yaml").string();
  const auto r = run_cli("calibrate --hardware h200 --model llama-3-8b --measurements "
                         "data/measurements/h200_llama3_8b_steps.csv -o " + out1);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("whole steps fitted: 23 rows") != std::string::npos);
  const auto hw = servesim::load_hardware(out1);
  CHECK(hw.name == "h200");
  CHECK(hw.peak_flops_bf16 == 989.5e12);
  const std::string yaml = read_file(out1);
  CHECK(yaml.find("# --- servesim calibrate: begin") != std::string::npos);
  CHECK(yaml.find("#   decode 256 x 1024") != std::string::npos);
  CHECK(hw.calibrated_from == "data/measurements/h200_llama3_8b_steps.csv");
  // A scenario on the profile is priced by the fitted roofline, and validate says why.
  const auto validate = run_cli("validate scenarios/quickstart.yaml --set cluster.pools.0.hardware=" + out1);
  INFO(validate.output);
  CHECK(validate.exit_code == 0);
  CHECK(validate.output.find("cost model roofline; serves every class\n      cost model chosen: the hardware profile "
                             "h200 was calibrated to measured steps (data/measurements/h200_llama3_8b_steps.csv)") !=
        std::string::npos);
  const auto named = run_cli("validate scenarios/quickstart.yaml --set cluster.pools.0.hardware=" + out1 +
                             " --set cluster.pools.0.cost_model=kernels");
  CHECK(named.output.find("cost model kernels (h200_sxm/vllm-0.14.0 tables") != std::string::npos);
  CHECK(named.output.find("cost model chosen: named in the scenario") != std::string::npos);

  // Calibrating the calibrated profile replaces its block rather than adding one: the
  // lines outside the block are the same, the block appears once, and the fit agrees.
  const auto again = run_cli("calibrate --hardware " + out1 + " --model llama-3-8b --measurements "
                             "data/measurements/h200_llama3_8b_steps.csv -o " + out2);
  REQUIRE(again.exit_code == 0);
  const auto outside_block = [](const std::string& s) {
    return s.substr(0, s.find("# --- servesim calibrate: begin"));
  };
  const std::string second = read_file(out2);
  CHECK(outside_block(yaml) == outside_block(second));
  CHECK(second.find("# --- servesim calibrate: begin") == second.rfind("# --- servesim calibrate: begin"));
  const auto hw2 = servesim::load_hardware(out2);
  CHECK(hw2.gemm_efficiency == Approx(hw.gemm_efficiency).epsilon(1e-3));
  CHECK(hw2.decode_attention_efficiency == Approx(hw.decode_attention_efficiency).epsilon(1e-3));
  CHECK(hw2.layer_overhead_s == Approx(hw.layer_overhead_s).epsilon(1e-2));
}

TEST_CASE("calibrate: bad usage and bad files exit 2 with a message", "[fidelity]") {
  const auto missing = run_cli("calibrate --hardware h200 --model llama-3-8b");
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find("--measurements are required") != std::string::npos);
  const auto nofile = run_cli("calibrate --hardware h200 --model llama-3-8b --measurements /no/such.csv");
  CHECK(nofile.exit_code == 2);
  CHECK(nofile.output.find("cannot open") != std::string::npos);
  const auto badhw = run_cli("calibrate --hardware h2000 --model llama-3-8b --measurements "
                             "data/measurements/h200_llama3_8b_steps.csv");
  CHECK(badhw.exit_code == 2);
  CHECK(badhw.output.find("did you mean 'h200'") != std::string::npos);
  const auto help = run_cli("calibrate --help");
  CHECK(help.exit_code == 0);
  CHECK(help.output.find("--fit-max-prefill") != std::string::npos);
}

}  // namespace calibrate_cli_test
