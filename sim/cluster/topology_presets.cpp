// Building a Topology from the scenario's spec, and the built-in machine presets
// (figures and their sources: docs/cluster.md).
#include <algorithm>
#include <string>

#include "sim/cluster/topology.h"
#include "sim/core/errors.h"

namespace servesim {

namespace {

constexpr const char* kKey = "cluster.topology";

// DGX H100 (NVIDIA DGX H100 datasheet): 8 H100 GPUs on NVSwitch, 900 GB/s bidirectional
// NVLink per GPU (450 GB/s each way); 8 single-port ConnectX-7 400 Gb/s InfiniBand NICs,
// one per GPU, behind PCIe Gen5 x16 (64 GB/s each way). Latencies are assumptions of the
// order NCCL reports, not measurements (docs/cluster.md).
constexpr double kNvlinkBytesPerS = 450e9;
constexpr double kPcieGen5x16BytesPerS = 64e9;
constexpr double kInfiniBand400gBytesPerS = 400e9 / 8;
constexpr Tick kNvlinkHopNs = 500;
constexpr Tick kPcieHopNs = 500;
constexpr Tick kInfiniBandHopNs = 1'000;
constexpr int kGpusPerDgx = 8;

void add_dgx_h100(Topology& t, int machines) {
  const int fabric = t.add_node("ib-switch", "switch");
  for (int m = 0; m < machines; ++m) {
    const std::string prefix = "node" + std::to_string(m) + "/";
    const int nvswitch = t.add_node(prefix + "nvswitch", "nvswitch");
    for (int g = 0; g < kGpusPerDgx; ++g) {
      const int gpu = t.add_node(prefix + "gpu" + std::to_string(g), "gpu");
      const int nic = t.add_node(prefix + "nic" + std::to_string(g), "nic");
      t.add_link(gpu, nvswitch, kNvlinkBytesPerS, kNvlinkHopNs);
      t.add_link(gpu, nic, kPcieGen5x16BytesPerS, kPcieHopNs);
      t.add_link(nic, fabric, kInfiniBand400gBytesPerS, kInfiniBandHopNs);
    }
  }
}

}  // namespace

std::vector<std::string> topology_preset_names() { return {"dgx-h100"}; }

Topology build_topology(const TopologySpec& spec, int gpus_needed) {
  Topology t;
  if (!spec.preset.empty()) {
    if (spec.preset != "dgx-h100")
      throw ConfigError("", 0, std::string(kKey) + ".preset", "unknown topology preset '" + spec.preset + "'");
    const int machines = spec.preset_nodes > 0 ? spec.preset_nodes
                                               : std::max(1, (gpus_needed + kGpusPerDgx - 1) / kGpusPerDgx);
    add_dgx_h100(t, machines);
  } else {
    for (std::size_t i = 0; i < spec.nodes.size(); ++i) {
      if (t.find(spec.nodes[i].name))
        throw ConfigError("", 0, std::string(kKey) + ".nodes." + std::to_string(i),
                          "duplicate node name '" + spec.nodes[i].name + "'");
      t.add_node(spec.nodes[i].name, spec.nodes[i].kind);
    }
    for (std::size_t i = 0; i < spec.links.size(); ++i) {
      const auto& l = spec.links[i];
      const auto a = t.find(l.a), b = t.find(l.b);
      if (!a || !b)
        throw ConfigError("", 0, std::string(kKey) + ".links." + std::to_string(i),
                          "link names an unknown node '" + (a ? l.b : l.a) + "'");
      t.add_link(*a, *b, l.bandwidth_bytes_per_s, l.latency_ns);
    }
  }
  if (static_cast<int>(t.gpus().size()) < gpus_needed)
    throw ConfigError("", 0, kKey,
                      "the topology has " + std::to_string(t.gpus().size()) + " GPU nodes but the pools need " +
                          std::to_string(gpus_needed) + " (replicas x tp x pp, placed in pool order)");
  return t;
}

}  // namespace servesim
