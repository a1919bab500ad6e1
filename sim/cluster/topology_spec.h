#pragma once
// The cluster network as the scenario declares it (`cluster.topology:`), before it is built
// into a graph (topology.h). Plain data, so sim/scenario can fill it without Boost.
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace servesim {

struct TopologyNodeSpec {
  std::string name;
  std::string kind;  // gpu | nvswitch | pcie | host | nic | switch
};

// A full-duplex link: `bandwidth_bytes_per_s` in each direction, `latency_ns` per traversal.
struct TopologyLinkSpec {
  std::string a;
  std::string b;
  double bandwidth_bytes_per_s = 0;
  Tick latency_ns = 0;
};

struct TopologySpec {
  // A named preset ("dgx-h100"), or empty for the nodes and links below.
  std::string preset;
  int preset_nodes = 0;  // machines of the preset; 0: as many as the pools' GPUs need
  std::vector<TopologyNodeSpec> nodes;
  std::vector<TopologyLinkSpec> links;
};

// Names of the built-in presets, for validation.
std::vector<std::string> topology_preset_names();

}  // namespace servesim
