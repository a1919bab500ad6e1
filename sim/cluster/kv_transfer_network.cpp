#include "sim/cluster/kv_transfer_network.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/assert.h"

namespace servesim {

KvTransferNetwork::KvTransferNetwork(Simulator& sim, const Topology& topology)
    : sim_(sim),
      topology_(topology),
      edge_left_(static_cast<std::size_t>(topology.num_edges())),
      edge_users_(static_cast<std::size_t>(topology.num_edges())) {}

void KvTransferNetwork::start(int from, int to, double bytes, std::function<void()> done) {
  SS_ASSERT(bytes >= 0, "negative transfer");
  ++started_;
  const auto path = topology_.path(from, to);
  SS_ASSERT(path.has_value(), "transfer between unconnected nodes");
  if (path->edges.empty() || bytes == 0) {  // same node, or nothing to move
    sim_.schedule_in(path->latency_ns, std::move(done));
    return;
  }
  advance(sim_.now());
  flows_.push_back(Flow{path->edges, bytes, 0, path->latency_ns, std::move(done)});
  reshare();
  arm();
}

void KvTransferNetwork::advance(Tick now) {
  const double dt_s = seconds_from_ticks(now - updated_ns_);
  if (dt_s > 0)
    for (Flow& f : flows_) f.remaining_bytes = std::max(0.0, f.remaining_bytes - f.rate_bytes_per_s * dt_s);
  updated_ns_ = now;
}

// Progressive filling: the edge with the smallest equal share fixes the rate of every
// unfixed flow crossing it; remove them, repeat (Bertsekas & Gallager, Data Networks §6.5).
void KvTransferNetwork::reshare() {
  for (std::size_t e = 0; e < edge_left_.size(); ++e) {
    edge_left_[e] = topology_.edge_bandwidth(static_cast<int>(e));
    edge_users_[e] = 0;
  }
  std::vector<Flow*> unfixed;
  for (Flow& f : flows_) {
    unfixed.push_back(&f);
    for (int e : f.edges) ++edge_users_[static_cast<std::size_t>(e)];
  }
  while (!unfixed.empty()) {
    int tightest = -1;
    double share = std::numeric_limits<double>::max();
    for (const Flow* f : unfixed)
      for (int e : f->edges) {
        const auto i = static_cast<std::size_t>(e);
        const double s = edge_left_[i] / edge_users_[i];
        if (s < share) share = s, tightest = e;
      }
    std::vector<Flow*> rest;
    for (Flow* f : unfixed) {
      if (std::find(f->edges.begin(), f->edges.end(), tightest) == f->edges.end()) {
        rest.push_back(f);
        continue;
      }
      f->rate_bytes_per_s = share;
      for (int e : f->edges) {
        const auto i = static_cast<std::size_t>(e);
        edge_left_[i] = std::max(0.0, edge_left_[i] - share);
        --edge_users_[i];
      }
    }
    unfixed.swap(rest);
  }
}

// Rounded up to a whole ns, so a transfer never arrives before its bytes could.
Tick KvTransferNetwork::finish_ns(const Flow& f) const {
  SS_ASSERT(f.rate_bytes_per_s > 0, "a flow without bandwidth");
  return updated_ns_ + static_cast<Tick>(std::ceil(f.remaining_bytes / f.rate_bytes_per_s * 1e9 - 1e-6));
}

void KvTransferNetwork::arm() {
  sim_.cancel(next_);
  if (flows_.empty()) return;
  Tick earliest = kTickMax;
  for (const Flow& f : flows_) earliest = std::min(earliest, finish_ns(f));
  next_ = sim_.schedule_at(std::max(earliest, sim_.now()), [this] { on_last_byte(); });
}

void KvTransferNetwork::on_last_byte() {
  const Tick now = sim_.now();
  // Which flows end now is decided before draining, with the same rounding arm() used.
  std::vector<std::function<void()>> arrived;
  std::vector<Tick> latencies;
  for (auto it = flows_.begin(); it != flows_.end();) {
    if (finish_ns(*it) <= now) {
      arrived.push_back(std::move(it->done));
      latencies.push_back(it->latency_ns);
      it = flows_.erase(it);
    } else {
      ++it;
    }
  }
  advance(now);
  reshare();
  arm();
  for (std::size_t i = 0; i < arrived.size(); ++i) sim_.schedule_in(latencies[i], std::move(arrived[i]));
}

}  // namespace servesim
