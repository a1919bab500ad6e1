// Collectives whose group spans more than one NVLink domain are NCCL's, priced by NCCL's
// own model with the same buffer's all-reduce inside one machine as a floor (docs/cost-model.md,
// "Across machines"; sim/hardware/nccl_all_reduce.cpp). Expected times are worked out here by
// hand from NCCL's tuning figures (src/graph/tuning.cc, quoted in nccl_all_reduce.cpp) and
// the H100 profile: NVLink 450 GB/s and network 50 GB/s per GPU one way, 8 GPUs per machine,
// one NIC per GPU; inside one machine NVLink derated by comm_efficiency 0.6579 (296.055 GB/s)
// and a launch latency of 4.77 us (both fitted to the custom all-reduce of the kernel tables).
//
// Two machines of 8 (16 ranks): 8 channels, one per NIC, each min(50, 450 / 8) = 50 GB/s:
// bus bandwidth 400 GB/s. Ring: 2 x 15 = 30 steps, 2 x 2 = 4 of them over the network.
//   ring/LL     bus min(39, 400 / 4) = 39, x 16/30 = 20.8 GB/s; latency 6.6 + 26 x max(.6, 1) + 4 x 2.7 = 43.4 us
//   ring/LL128  bus min(400 x .92, 8 x 36.7) = 293.6, x 16/30 = 156.58667 GB/s; latency 14 + 26 x 1.9 + 4 x 4 = 79.4 us
//   ring/Simple bus 400, x 16/30 = 213.33333 GB/s; latency (8.4 + 26 x max(3.4, 3) + 4 x 14) x 1.4 = 213.92 us
//   tree: bus min(400 x .92, 8 x 41.4) = 331.2; latency base + 2 x (7 x NVLink + 1 x network)
//   tree/LL     bus min(331.2 / 3.8, 39) = 39, x .5 = 19.5 GB/s x correction; latency 6.8 + 2 x (7 x .6 + 5) = 25.2 us
//   tree/LL128  bus min(331.2 x 120/128, 8 x 36.7) = 293.6, x .5 = 146.8 GB/s x correction; latency 14 + 2 x (7 x 1.25 + 8.5) = 48.5 us
// time = latency + bytes / (1000 x bandwidth) us.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cli/subcommands.h"
#include "sim/core/errors.h"
#include "sim/hardware/nccl_all_reduce.h"
#include "sim/hardware/roofline.h"
#include "sim/scenario/model_loader.h"

namespace cross_machine_comm_test {

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

TEST_CASE("cross-machine: NCCL's model prices a 16-GPU all-reduce over two machines by hand", "[hardware][network][nccl]") {
  const NcclGroup two{16, 2, 450e9, 50e9};
  // Decode of 8 sequences of Llama-3-70B: 8 x 8192 x 2 B = 131,072 B; log2(131072 / 64) = 11.
  const double small = 131072;
  CHECK(nccl_all_reduce_s(two, small, NcclAlgorithm::ring, NcclProtocol::ll) == Approx((43.4 + small / 20800) * 1e-6));
  // tree/LL: correction .5 at 2^11 -> 9.75 GB/s: 25.2 + 13.4433 = 38.6433 us.
  CHECK(nccl_all_reduce_s(two, small, NcclAlgorithm::tree, NcclProtocol::ll) == Approx((25.2 + small / 9750) * 1e-6));
  const NcclPrice decode = nccl_all_reduce(two, small);
  CHECK(decode.time_s == Approx(38.6433e-6).epsilon(1e-5));
  CHECK(decode.algorithm == NcclAlgorithm::tree);
  CHECK(decode.protocol == NcclProtocol::ll);
  CHECK(std::string(decode.label) == "tree/LL");
  // A 2048-token prompt: 2048 x 8192 x 2 = 33,554,432 B. The ring, 2 (n-1)/n x bytes over the
  // bus bandwidth plus its per-step latencies:
  const double big = 33554432;
  CHECK(nccl_all_reduce_s(two, big, NcclAlgorithm::ring, NcclProtocol::simple) ==
        Approx((213.92 + big / 213333.333) * 1e-6));  // 371.2064 us
  CHECK(nccl_all_reduce_s(two, big, NcclAlgorithm::ring, NcclProtocol::ll128) ==
        Approx((79.4 + big / 156586.667) * 1e-6));  // 293.6866 us
  // tree/LL128 at 2^19: correction .9 -> 132.12 GB/s: 48.5 + 253.969 = 302.469 us.
  CHECK(nccl_all_reduce_s(two, big, NcclAlgorithm::tree, NcclProtocol::ll128) == Approx((48.5 + big / 132120) * 1e-6));
  const NcclPrice prefill = nccl_all_reduce(two, big);
  CHECK(std::string(prefill.label) == "ring/LL128");
  CHECK(prefill.time_s == Approx(293.6866e-6).epsilon(1e-5));
}

TEST_CASE("cross-machine: llama-3-70b all-reduce at tp 16 on H100 is NCCL's and never below one machine's", "[hardware][network]") {
  const ModelSpec model = load_model("llama-3-70b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  REQUIRE(hw.interconnect_domain_gpus == 8);
  REQUIRE(hw.network_bandwidth_bytes_per_s == 50e9);
  REQUIRE(hw.interconnect_bandwidth_bytes_per_s == 450e9);
  REQUIRE(hw.comm_efficiency == 0.6579);
  REQUIRE(hw.interconnect_latency_s == Approx(4.77e-6));
  const BatchShape batch = one_prompt(2048);
  // One layer's buffer S = 2048 tokens x 8192 hidden x 2 bytes = 33,554,432 B; 80 layers.
  Deployment tp8;
  tp8.tp = 8;
  const RooflineCostModel rf8(model, hw, tp8);
  const OpTiming ar8 = op_named(rf8, batch, "attn_all_reduce");
  // Inside the machine, unchanged: the ring, 2 x 7/8 x S x 80 = 4,697,620,480 B /
  // 296.055 GB/s = 15.867391 ms, + 4.77 us x 80 launches = 0.3816 ms.
  CHECK(ar8.time_s == Approx(0.016248991).epsilon(1e-6));
  CHECK(ar8.link == "nvlink");
  CHECK(ar8.algorithm == "ring");

  Deployment tp16;
  tp16.tp = 16;
  const RooflineCostModel rf16(model, hw, tp16);
  const OpTiming ar16 = op_named(rf16, batch, "attn_all_reduce");
  // NCCL's ring/LL128, 293.6866 us a call (above), x 80 = 23.49493 ms; the floor, the same
  // buffer over one machine's ring, is 203.112 us a call.
  CHECK(ar16.time_s == Approx(80 * 293.68665e-6).epsilon(1e-6));
  CHECK(ar16.time_s > ar8.time_s);
  CHECK(ar16.link == "network");
  CHECK(ar16.algorithm == "NCCL ring/LL128");
  // The op graph's ring bytes are what each GPU sends in all, whatever the link.
  CHECK(ar16.comm_bytes == Approx(2.0 * 15 / 16 * 33554432.0 * 80));
  const StepCost c8 = rf8.step_cost(batch);
  const StepCost c16 = rf16.step_cost(batch);
  CHECK(ms_from_ticks(c8.comm_ns) == Approx(2 * 16.248991).epsilon(1e-6));
  CHECK(ms_from_ticks(c16.comm_ns) == Approx(2 * 80 * 0.29368665).epsilon(1e-6));

  // Decode of 8 sequences: NCCL's tree/LL, 38.6433 us a call, twice the 8-GPU ring's.
  BatchShape decode;
  decode.decode_seqs = 8;
  decode.decode_context_sum = 8 * 1000;
  const OpTiming d16 = op_named(rf16, decode, "mlp_all_reduce");
  CHECK(d16.time_s == Approx(80 * 38.6433e-6).epsilon(1e-5));
  CHECK(d16.algorithm == "NCCL tree/LL");
  CHECK(d16.time_s > op_named(rf8, decode, "mlp_all_reduce").time_s);

  // The floor: a call is never cheaper than the same buffer inside one machine.
  const RooflineCostModel::CrossMachine floored = rf16.cross_machine_all_reduce(131072, 1e-3);
  CHECK(floored.time_s == 1e-3);
  CHECK(std::string(floored.algorithm) == "one machine's all-reduce (floor)");
  CHECK(rf16.domain_all_reduce_s(33554432) == Approx(1.75 * 33554432 / (450e9 * 0.6579) + 4.77e-6));
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
  // S = 1024 x 4096 x 2 = 8,388,608 B (log2(S / 64) = 17), 32 layers. NCCL's tree/LL128:
  // 146.8 GB/s x treeCorrectionFactor .9 at 2^17 = 132.12 GB/s, 48.5 + 63.492 = 111.992 us,
  // below ring/LL128's 79.4 + 8388608 / 156586.67 = 132.97 us; x 32 layers.
  CHECK(ar.time_s == Approx(32 * (48.5 + 8388608.0 / 132120) * 1e-6).epsilon(1e-6));
  CHECK(ar.link == "network");
  CHECK(ar.algorithm == "NCCL tree/LL128");
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
    const int code = cli::run_subcommand("step", {"--model", "llama-3-70b", "--hardware", "h100-sxm", "--tp", tp,
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
      CHECK(op["algorithm"] == "NCCL ring/LL128");
      // The measured custom all-reduce is one machine's: across machines NCCL's model,
      // 293.6866 us a call x 80, above NCCL's measured 8-GPU all-reduce of the buffer
      // (nccl_perf 2.27.3, 16,777,216 elements: 0.19992 ms).
      CHECK(op["ms"].get<double>() == Approx(80 * 0.29368665).epsilon(1e-6));
      CHECK(op["ms"].get<double>() / 80 >= 0.19992);
      if (cm == "kernels") CHECK(op["source"] == "NCCL model (across machines; floor nccl_perf)");
    }
    CHECK(saw);
    for (const auto& op : j8["ops"]) {
      if (op["name"] != "attn_all_reduce") continue;
      CHECK(op["link"] == "nvlink");
      CHECK(op["algorithm"] == (cm == "kernels" ? "custom all-reduce" : "ring"));
    }
  }
  // The case: decode at tp 16 under the kernels model. 8 sequences: 65,536 elements a
  // call, which NCCL's 8-GPU all-reduce takes 19.01 us for inside one machine (nccl_perf);
  // across two machines NCCL's tree/LL, 38.6433 us.
  {
    std::ostringstream out, err;
    REQUIRE(cli::run_subcommand("step", {"--model", "llama-3-70b", "--hardware", "h100-sxm", "--tp", "16", "--decode", "8:1000",
                               "--cost-model", "kernels", "--json"},
                              out, err) == 0);
    const auto j = nlohmann::json::parse(out.str());
    bool saw = false;
    for (const auto& op : j["ops"]) {
      if (op["name"] != "mlp_all_reduce") continue;
      saw = true;
      CHECK(op["ms"].get<double>() / 80 >= 0.01901);
      CHECK(op["ms"].get<double>() == Approx(80 * 0.0386433).epsilon(1e-5));
      CHECK(op["algorithm"] == "NCCL tree/LL");
    }
    CHECK(saw);
  }
  std::ostringstream out, err;
  REQUIRE(cli::run_subcommand("step", {"--model", "llama-3-70b", "--hardware", "h100-sxm", "--tp", "16", "--prefill", "2048",
                             "--cost-model", "roofline"},
                            out, err) == 0);
  CHECK(out.str().find("communication over network (NCCL ring/LL128)") != std::string::npos);
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
    CHECK(cli::run_subcommand("step", {"--model", "llama-3-8b", "--hardware", path, "--decode", "1:100"}, out, err) == 2);
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

}  // namespace cross_machine_comm_test
