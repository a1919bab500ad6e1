#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "sim/core/errors.h"
#include "sim/scenario/model_loader.h"

namespace hardware_loader_test {

using namespace servesim;

TEST_CASE("hardware loader: the H200 profile converts its datasheet units", "[hardware]") {
  const HardwareSpec hw = load_hardware("h200");
  CHECK(hw.name == "h200");
  CHECK(hw.memory_bytes == 141.0 * 1024 * 1024 * 1024);
  CHECK(hw.memory_bandwidth_bytes_per_s == 4.8e12);
  CHECK(hw.peak_flops_bf16 == 989.5e12);
  CHECK(hw.peak_flops(Dtype::fp8) == 1979e12);
  CHECK(hw.peak_flops(Dtype::int4) == 989.5e12);
  CHECK(hw.interconnect_bandwidth_bytes_per_s == 450e9);
  CHECK(hw.interconnect_latency_s == Approx(4.905e-6));
  // Fitted by `servesim calibrate` (tests/cli/calibrate_cli_test.cpp checks the values):
  // here only that every roofline key arrives, in SI units.
  CHECK(hw.kernel_overhead_s > 1e-6);
  CHECK(hw.kernel_overhead_s < 20e-6);
  CHECK(hw.layer_overhead_s > 0);
  CHECK(hw.step_overhead_s == 0);
  CHECK(hw.attention_row_overhead_keys > 1);
  CHECK(hw.decode_attention_half_seqs > 1);
  CHECK(hw.elementwise_efficiency > 0);
  CHECK(hw.elementwise_efficiency <= 1);
  CHECK(hw.price_per_gpu_hour > 0);
}

TEST_CASE("hardware loader: every bundled profile loads - and Ampere falls back to bf16 for fp8", "[hardware]") {
  for (const char* name : {"a100-80g-sxm", "a100-80g-pcie", "h100-sxm", "h200", "l40s"}) {
    INFO(name);
    const HardwareSpec hw = load_hardware(name);
    CHECK(hw.name == name);
    CHECK(hw.memory_bytes > 40e9);
    CHECK(hw.source.find("datasheet") != std::string::npos);
  }
  const HardwareSpec a100 = load_hardware("a100-80g-sxm");
  CHECK(a100.peak_flops(Dtype::fp8) == 312e12);
  CHECK(load_hardware("l40s").memory_bandwidth_bytes_per_s == 864e9);
}

TEST_CASE("hardware loader: unknown keys and out-of-range efficiencies are reported at their line", "[hardware]") {
  const auto dir = std::filesystem::temp_directory_path() / ("servesim-hw-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string base = "memory_gib: 80\nmemory_bandwidth_tb_s: 2\npeak_tflops_bf16: 300\ninterconnect_bandwidth_gb_s: 50\n";
  const auto write = [&](const std::string& file, const std::string& text) {
    std::ofstream(dir / file) << text;
    return (dir / file).string();
  };
  try {
    load_hardware(write("a.yaml", base + "memory_bandwith_tb_s: 3\n"));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 5);
    CHECK(e.key() == "memory_bandwith_tb_s");
  }
  try {
    load_hardware(write("b.yaml", base + "gemm_efficiency: 1.5\n"));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 5);
    CHECK(e.key() == "gemm_efficiency");
  }
  CHECK_THROWS_WITH(load_hardware(write("c.yaml", "memory_bandwidth_tb_s: 2\npeak_tflops_bf16: 300\ninterconnect_bandwidth_gb_s: 50\n")),
                    Catch::Contains("memory_gib"));
  CHECK_THROWS_WITH(load_hardware(write("d.yaml", base + "memory_gb: 80\n")), Catch::Contains("not both"));
  const HardwareSpec ok = load_hardware(write("e.yaml", base));
  CHECK(ok.name == "e");
  CHECK(ok.gemm_efficiency == HardwareSpec{}.gemm_efficiency);
  // Absent shape parameters stay 0: "none" or "as memory_efficiency".
  CHECK(ok.kernel_overhead_s == 0);
  CHECK(ok.decode_kv_efficiency(64) == ok.memory_efficiency);
  CHECK(ok.elementwise_bandwidth_efficiency() == ok.memory_efficiency);
  const HardwareSpec shaped = load_hardware(write(
      "f.yaml", base + "kernel_overhead_us: 4.5\nattention_row_overhead_keys: 250\n"
                       "decode_attention_efficiency: 0.9\ndecode_attention_efficiency_many: 0.5\n"
                       "decode_attention_half_seqs: 20\nelementwise_efficiency: 0.4\n"));
  CHECK(shaped.kernel_overhead_s == Approx(4.5e-6));
  CHECK(shaped.attention_row_overhead_keys == 250);
  CHECK(shaped.decode_kv_efficiency(20) == Approx(0.7));
  CHECK(shaped.elementwise_bandwidth_efficiency() == 0.4);
  CHECK_THROWS_WITH(load_hardware(write("g.yaml", base + "decode_attention_efficiency_many: 0\n")),
                    Catch::Contains("fraction in (0, 1]"));
  std::filesystem::remove_all(dir);
}

}  // namespace hardware_loader_test
