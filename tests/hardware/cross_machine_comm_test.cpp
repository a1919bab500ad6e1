// Collectives whose group spans more than one NVLink domain are priced over the network
// (RooflineCostModel, docs/cost-model.md "Across machines"). Expected times are worked out
// here by hand from the H100 profile's figures: NVLink 450 GB/s and network 50 GB/s per
// GPU one way, both derated by comm_efficiency 0.6579 (296.055 and 32.895 GB/s), launch
// latency 4.77 us (both fitted to the custom all-reduce of the kernel tables), network
// latency 3 us per message, 8 GPUs per domain.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cli/commands.h"
#include "sim/core/errors.h"
#include "sim/hardware/roofline.h"
#include "sim/scenario/model_loader.h"

using namespace servesim;

namespace {

OpTiming op_named(const RooflineCostModel& rf, const BatchShape& batch, const std::string& name) {
  for (const OpTiming& t : rf.breakdown(batch))
    if (t.name == name) return t;
  FAIL("no operator " << name);
  return {};
}

BatchShape one_prompt(std::int64_t tokens) {
  BatchShape b;
  b.prefills.push_back({tokens, 0, true});
  return b;
}

}  // namespace

TEST_CASE("cross-machine: llama-3-70b all-reduce at tp 16 on H100 is hierarchical over NVLink and the network", "[hardware][network]") {
  const ModelSpec model = load_model("llama-3-70b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  REQUIRE(hw.interconnect_domain_gpus == 8);
  REQUIRE(hw.network_bandwidth_bytes_per_s == 50e9);
  REQUIRE(hw.network_latency_s == Approx(3e-6));
  REQUIRE(hw.comm_efficiency == 0.6579);
  REQUIRE(hw.interconnect_latency_s == Approx(4.77e-6));
  const BatchShape batch = one_prompt(2048);
  // One layer's buffer S = 2048 tokens x 8192 hidden x 2 bytes = 33,554,432 B; 80 layers.
  Deployment tp8;
  tp8.tp = 8;
  const RooflineCostModel rf8(model, hw, tp8);
  const OpTiming ar8 = op_named(rf8, batch, "attn_all_reduce");
  // Ring inside the machine: 2 x 7/8 x S x 80 = 4,697,620,480 B / 296.055 GB/s = 15.867391 ms,
  // + 4.77 us x 80 launches = 0.3816 ms.
  CHECK(ar8.time_s == Approx(0.016248991).epsilon(1e-6));
  CHECK(ar8.link == "nvlink");

  Deployment tp16;
  tp16.tp = 16;
  const RooflineCostModel rf16(model, hw, tp16);
  const OpTiming ar16 = op_named(rf16, batch, "attn_all_reduce");
  // Two machines of 8: reduce-scatter + all-gather inside each, 2 x 7/8 x S x 80 over NVLink
  // (15.867391 ms, as at tp 8); a 2-machine ring all-reduce of S/8 over the network,
  // 2 x 1/2 x S/8 x 80 = 335,544,320 B / 32.895 GB/s = 10.200466 ms; latency per launch
  // 4.77 us + 2 x (2 - 1) x 3 us = 10.77 us, x 80 = 0.8616 ms.
  CHECK(ar16.time_s == Approx(0.026929457).epsilon(1e-6));
  CHECK(ar16.link == "network");
  // The op graph's ring bytes are what each GPU sends in all, whatever the link.
  CHECK(ar16.comm_bytes == Approx(2.0 * 15 / 16 * 33554432.0 * 80));
  // The whole step's communication: both all-reduces of every layer.
  const StepCost c8 = rf8.step_cost(batch);
  const StepCost c16 = rf16.step_cost(batch);
  CHECK(ms_from_ticks(c8.comm_ns) == Approx(2 * 16.248991).epsilon(1e-6));
  CHECK(ms_from_ticks(c16.comm_ns) == Approx(2 * 26.929457).epsilon(1e-6));
  CHECK(c16.comm_ns > c8.comm_ns);

  Deployment tp64;
  tp64.tp = 64;
  const RooflineCostModel rf64(model, hw, tp64);
  const OpTiming ar64 = op_named(rf64, batch, "attn_all_reduce");
  // Eight machines: NVLink part as above; network 2 x 7/8 x S/8 x 80 = 587,202,560 B /
  // 32.895 GB/s = 17.850815 ms; latency (4.77 + 2 x 7 x 3) us x 80 = 3.7416 ms.
  CHECK(ar64.time_s == Approx(0.037459806).epsilon(1e-6));
}

TEST_CASE("cross-machine: groups inside one NVLink domain are priced as before", "[hardware][network]") {
  const ModelSpec model = load_model("llama-3-70b");
  HardwareSpec bounded = load_hardware("h100-sxm");
  HardwareSpec unbounded = bounded;
  unbounded.interconnect_domain_gpus = 0;  // no domain: every group over NVLink
  BatchShape batch = one_prompt(1000);
  batch.decode_seqs = 40;
  batch.decode_context_sum = 40 * 3000;
  for (int tp : {2, 4, 8}) {
    for (int pp : {1, 2}) {
      if (tp * pp > 8) continue;
      Deployment dep;
      dep.tp = tp;
      dep.pp = pp;
      const StepCost a = RooflineCostModel(model, bounded, dep).step_cost(batch);
      const StepCost b = RooflineCostModel(model, unbounded, dep).step_cost(batch);
      CHECK(a.total_ns == b.total_ns);
      CHECK(a.comm_ns == b.comm_ns);
    }
  }
}

TEST_CASE("cross-machine: a pipeline across machines sends its activations over the network", "[hardware][network]") {
  const ModelSpec model = load_model("llama-3-70b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  const BatchShape batch = one_prompt(2048);
  Deployment inside;  // 4 x 2 = 8 GPUs: one machine
  inside.tp = 4;
  inside.pp = 2;
  const OpTiming near = op_named(RooflineCostModel(model, hw, inside), batch, "pp_transfer");
  // S = 33,554,432 B / 296.055 GB/s = 113.3385 us + 4.77 us.
  CHECK(near.time_s == Approx(0.00011810851).epsilon(1e-6));
  CHECK(near.link == "nvlink");
  Deployment across;  // 8 x 2 = 16 GPUs: each stage a machine
  across.tp = 8;
  across.pp = 2;
  const RooflineCostModel rf(model, hw, across);
  const OpTiming far = op_named(rf, batch, "pp_transfer");
  // S / 32.895 GB/s = 1,020.0466 us + 4.77 us launch + 3 us network.
  CHECK(far.time_s == Approx(0.0010278166).epsilon(1e-6));
  CHECK(far.link == "network");
  // Each stage's tensor-parallel group is still one machine.
  CHECK(op_named(rf, batch, "attn_all_reduce").link == "nvlink");
}

TEST_CASE("cross-machine: expert parallelism across machines pays the network in its all-reduce", "[hardware][network]") {
  // The experts' outputs are summed by the stage's all-reduce (op graph: no all-to-all), so
  // an expert-parallel group across machines shows in mlp_all_reduce.
  const ModelSpec model = load_model("mixtral-8x7b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  const BatchShape batch = one_prompt(1024);
  Deployment dep;
  dep.tp = 16;
  dep.ep = 8;
  const OpTiming ar = op_named(RooflineCostModel(model, hw, dep), batch, "mlp_all_reduce");
  // S = 1024 x 4096 x 2 = 8,388,608 B, 32 layers: NVLink 1.75 x S x 32 / 296.055 GB/s =
  // 1.586739 ms; network S/8 x 32 / 32.895 GB/s = 1.020047 ms; latency 10.77 us x 32 =
  // 0.34464 ms.
  CHECK(ar.time_s == Approx(0.0029514257).epsilon(1e-6));
  CHECK(ar.link == "network");
  Deployment one_machine;
  one_machine.tp = 8;
  one_machine.ep = 8;
  const OpTiming inside = op_named(RooflineCostModel(model, hw, one_machine), batch, "mlp_all_reduce");
  CHECK(inside.link == "nvlink");
  CHECK(inside.time_s < ar.time_s);
}

TEST_CASE("cross-machine: servesim step shows the link and prices tp 16 above tp 8 with either cost model", "[hardware][network][step]") {
  const auto run = [](const std::string& tp, const std::string& cost_model) {
    std::ostringstream out, err;
    const int code = cli::step_command({"--model", "llama-3-70b", "--hardware", "h100-sxm", "--tp", tp,
                                        "--prefill", "2048", "--cost-model", cost_model, "--json"},
                                       out, err);
    REQUIRE(code == 0);
    return nlohmann::json::parse(out.str());
  };
  for (const std::string cm : {"roofline", "kernels"}) {
    INFO(cm);
    const auto j8 = run("8", cm);
    const auto j16 = run("16", cm);
    CHECK(j16["comm_ms"].get<double>() > j8["comm_ms"].get<double>());
    bool saw = false;
    for (const auto& op : j16["ops"]) {
      if (op["name"] != "attn_all_reduce") {
        if (op["bound"] != "communication") CHECK_FALSE(op.contains("link"));
        continue;
      }
      saw = true;
      CHECK(op["link"] == "network");
      // The measured custom all-reduce is one machine's: across machines the roofline's.
      CHECK(op["ms"].get<double>() == Approx(26.929457).epsilon(1e-6));
      if (cm == "kernels") CHECK(op["source"] == "roofline (across machines)");
    }
    CHECK(saw);
    for (const auto& op : j8["ops"])
      if (op["name"] == "attn_all_reduce") CHECK(op["link"] == "nvlink");
  }
  std::ostringstream out, err;
  REQUIRE(cli::step_command({"--model", "llama-3-70b", "--hardware", "h100-sxm", "--tp", "16", "--prefill", "2048",
                             "--cost-model", "roofline"},
                            out, err) == 0);
  CHECK(out.str().find("communication over network") != std::string::npos);
}

TEST_CASE("cross-machine: bad interconnect domain and network keys name the file and line and key", "[hardware][network]") {
  const auto dir = std::filesystem::temp_directory_path() / ("servesim-net-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string base =
      "memory_gib: 80\nmemory_bandwidth_tb_s: 2\npeak_tflops_bf16: 300\ninterconnect_bandwidth_gb_s: 50\n";
  const auto write = [&](const std::string& file, const std::string& text) {
    std::ofstream(dir / file) << text;
    return (dir / file).string();
  };
  const auto fails_at = [&](const std::string& file, const std::string& extra, int line, const std::string& key) {
    const std::string path = write(file, base + extra);
    try {
      load_hardware(path);
      FAIL("expected a ConfigError for " << extra);
    } catch (const ConfigError& e) {
      CHECK(e.line() == line);
      CHECK(e.key() == key);
    }
    // The command line: exit 2 and a message with the file, the line and the key.
    std::ostringstream out, err;
    CHECK(cli::step_command({"--model", "llama-3-8b", "--hardware", path, "--decode", "1:100"}, out, err) == 2);
    CHECK(err.str().find(file) != std::string::npos);
    CHECK(err.str().find(":" + std::to_string(line)) != std::string::npos);
    CHECK(err.str().find(key) != std::string::npos);
  };
  const std::string net = "network_bandwidth_gb_s: 50\nnetwork_latency_us: 3\n";
  fails_at("zero.yaml", "interconnect_domain_gpus: 0\n" + net, 5, "interconnect_domain_gpus");
  fails_at("half.yaml", "interconnect_domain_gpus: 7.5\n" + net, 5, "interconnect_domain_gpus");
  fails_at("alone.yaml", "interconnect_domain_gpus: 8\n", 5, "interconnect_domain_gpus");
  fails_at("negative.yaml", "interconnect_domain_gpus: 8\nnetwork_bandwidth_gb_s: -50\nnetwork_latency_us: 3\n", 6,
           "network_bandwidth_gb_s");
  fails_at("latency.yaml", "interconnect_domain_gpus: 8\nnetwork_bandwidth_gb_s: 50\nnetwork_latency_us: -1\n", 7,
           "network_latency_us");
  fails_at("orphan.yaml", net, 5, "network_bandwidth_gb_s");
  const HardwareSpec ok = load_hardware(write("ok.yaml", base + "interconnect_domain_gpus: 4\n" + net));
  CHECK(ok.interconnect_domain_gpus == 4);
  CHECK(ok.network_bandwidth_bytes_per_s == 50e9);
  CHECK(ok.crosses_domain(8));
  CHECK_FALSE(ok.crosses_domain(4));
  std::filesystem::remove_all(dir);
}

TEST_CASE("cross-machine: every bundled profile states its domain and network", "[hardware][network]") {
  for (const std::string name : {"h100-sxm", "h200", "a100-80g-sxm", "a100-80g-pcie", "l40s", "hypothetical-h100-2x-compute"}) {
    INFO(name);
    const HardwareSpec hw = load_hardware(name);
    CHECK(hw.interconnect_domain_gpus == 8);
    CHECK(hw.network_bandwidth_bytes_per_s > 0);
    CHECK(hw.network_bandwidth_bytes_per_s < hw.interconnect_bandwidth_bytes_per_s);
  }
}
