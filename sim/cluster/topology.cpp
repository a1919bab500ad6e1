#include "sim/cluster/topology.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <limits>

#include "sim/core/assert.h"
#include "sim/core/errors.h"

namespace servesim {

namespace {

// Dijkstra's weight: latency first, then one unit per hop, so equal-latency paths go the
// shorter way (integer weights: deterministic, no rounding).
constexpr std::int64_t kHopsPerNs = 1024;

}  // namespace

// A member of Topology::Graph rather than of an anonymous namespace: a type with external
// linkage may not hold a field of an internal one (GCC's -Wsubobject-linkage in a unity batch).
struct Topology::Graph {
  struct EdgeProps {
    std::int64_t weight = 0;
    int id = 0;
  };
  boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, EdgeProps> g;
};

Topology::Topology() : graph_(std::make_unique<Graph>()) {}
Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

int Topology::add_node(const std::string& name, const std::string& kind) {
  SS_ASSERT(!find(name), "duplicate topology node");
  const int index = static_cast<int>(boost::add_vertex(graph_->g));
  names_.push_back(name);
  if (kind == "gpu") gpus_.push_back(index);
  paths_.clear();
  return index;
}

void Topology::add_link(int a, int b, double bandwidth_bytes_per_s, Tick latency_ns) {
  SS_ASSERT(a >= 0 && a < num_nodes() && b >= 0 && b < num_nodes(), "link to an unknown node");
  SS_ASSERT(bandwidth_bytes_per_s > 0 && latency_ns >= 0, "link needs bandwidth > 0 and latency >= 0");
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    const int id = num_edges();
    boost::add_edge(static_cast<std::size_t>(from), static_cast<std::size_t>(to),
                    Graph::EdgeProps{latency_ns * kHopsPerNs + 1, id}, graph_->g);
    edge_bandwidth_.push_back(bandwidth_bytes_per_s);
    edge_latency_.push_back(latency_ns);
  }
  paths_.clear();
}

std::optional<int> Topology::find(const std::string& name) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<int>(i);
  return std::nullopt;
}

std::optional<NetworkPath> Topology::path(int from, int to) const {
  const auto key = std::pair{from, to};
  if (auto it = paths_.find(key); it != paths_.end()) return it->second;
  const auto& g = graph_->g;
  const std::size_t n = boost::num_vertices(g);
  std::vector<std::int64_t> dist(n, std::numeric_limits<std::int64_t>::max());
  std::vector<std::size_t> pred(n);
  boost::dijkstra_shortest_paths(
      g, static_cast<std::size_t>(from),
      boost::weight_map(boost::get(&Graph::EdgeProps::weight, g))
          .distance_map(boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, g)))
          .predecessor_map(boost::make_iterator_property_map(pred.begin(), boost::get(boost::vertex_index, g))));
  std::optional<NetworkPath> result;
  if (dist[static_cast<std::size_t>(to)] != std::numeric_limits<std::int64_t>::max()) {
    NetworkPath p;
    // Walk back from `to`; of parallel edges the predecessor step took the lightest.
    for (std::size_t v = static_cast<std::size_t>(to); v != static_cast<std::size_t>(from); v = pred[v]) {
      const std::size_t u = pred[v];
      int best = -1;
      std::int64_t best_weight = 0;
      for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) {
        if (boost::target(*e, g) != v) continue;
        if (best < 0 || g[*e].weight < best_weight) best = g[*e].id, best_weight = g[*e].weight;
      }
      SS_ASSERT(best >= 0, "Dijkstra predecessor without an edge");
      p.edges.push_back(best);
    }
    std::reverse(p.edges.begin(), p.edges.end());
    p.bottleneck_bytes_per_s = p.edges.empty() ? 0 : std::numeric_limits<double>::max();
    for (int e : p.edges) {
      p.latency_ns += edge_latency_[static_cast<std::size_t>(e)];
      p.bottleneck_bytes_per_s = std::min(p.bottleneck_bytes_per_s, edge_bandwidth_[static_cast<std::size_t>(e)]);
    }
    result = std::move(p);
  }
  paths_.emplace(key, result);
  return result;
}

}  // namespace servesim
