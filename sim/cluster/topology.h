#pragma once
// The cluster network as a Boost.Graph: nodes (GPUs, NVSwitches, PCIe switches, hosts,
// NICs, network switches) and full-duplex links, each direction a directed edge with its
// own bandwidth, so traffic one way does not slow traffic the other way. Paths are the
// lowest total latency (fewest hops on a tie); a path's bandwidth is its bottleneck edge's.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/topology_spec.h"
#include "sim/core/time.h"

namespace servesim {

struct NetworkPath {
  std::vector<int> edges;  // directed edge ids, source to destination
  Tick latency_ns = 0;     // sum over the edges
  double bottleneck_bytes_per_s = 0;  // least bandwidth over the edges (0 for an empty path)
};

class Topology {
 public:
  Topology();
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;

  // Returns the node's index. REQUIRES: a new name.
  int add_node(const std::string& name, const std::string& kind);
  // Adds both directions. REQUIRES: existing nodes, bandwidth > 0, latency >= 0.
  void add_link(int a, int b, double bandwidth_bytes_per_s, Tick latency_ns);

  std::optional<int> find(const std::string& name) const;
  const std::string& name(int node) const { return names_[static_cast<std::size_t>(node)]; }
  int num_nodes() const { return static_cast<int>(names_.size()); }
  int num_edges() const { return static_cast<int>(edge_bandwidth_.size()); }
  double edge_bandwidth(int edge) const { return edge_bandwidth_[static_cast<std::size_t>(edge)]; }
  // GPU nodes in the order they were added (replicas are placed on them in this order).
  const std::vector<int>& gpus() const { return gpus_; }

  // The lowest-latency path (Dijkstra), or nullopt when `to` cannot be reached. Memoised.
  std::optional<NetworkPath> path(int from, int to) const;

 private:
  struct Graph;
  std::unique_ptr<Graph> graph_;
  std::vector<std::string> names_;
  std::vector<int> gpus_;
  std::vector<double> edge_bandwidth_;
  std::vector<Tick> edge_latency_;
  mutable std::map<std::pair<int, int>, std::optional<NetworkPath>> paths_;
};

// Builds the declared topology, or the preset with enough machines for `gpus_needed` GPUs.
// Throws ConfigError (key cluster.topology...) on unknown or duplicate names and when there
// are fewer GPUs than needed.
Topology build_topology(const TopologySpec& spec, int gpus_needed);

}  // namespace servesim
