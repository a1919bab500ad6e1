#include "sim/hardware/kernels/kernel_grid.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

KernelGrid::KernelGrid(int dims, std::array<bool, 3> sqrt_axes) : dims_(dims), sqrt_axes_(sqrt_axes) {
  SS_ASSERT(dims >= 1 && dims <= 3, "a kernel grid has 1 to 3 coordinates");
}

void KernelGrid::add(const KernelCoord& at, double latency_s) {
  KernelCoord key = at;
  for (int i = dims_; i < 3; ++i) key[static_cast<std::size_t>(i)] = 0;
  points_.push_back({key, latency_s});
}

void KernelGrid::finish() {
  SS_ASSERT(!points_.empty(), "a kernel grid needs a measured point");
  // Repeated coordinates: the first row wins. The rows' indices sorted by coordinate,
  // stably, put the first of each repeated coordinate first (a set of every coordinate
  // did the same with a node allocated per row: tables load at every scenario's start).
  std::vector<std::uint32_t> order(points_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return points_[a].at < points_[b].at; });
  std::vector<std::uint32_t> kept_index(points_.size(), kDropped);
  for (std::size_t i = 0; i < order.size(); ++i)
    if (i == 0 || points_[order[i - 1]].at < points_[order[i]].at) kept_index[order[i]] = 0;
  // The kept points in the order added, and their places there in coordinate order.
  std::vector<Point> kept;
  kept.reserve(points_.size());
  for (std::size_t i = 0; i < points_.size(); ++i) {
    if (kept_index[i] == kDropped) continue;
    kept_index[i] = static_cast<std::uint32_t>(kept.size());
    kept.push_back(points_[i]);
  }
  points_ = std::move(kept);
  std::vector<std::uint32_t> sorted;
  sorted.reserve(points_.size());
  for (const std::uint32_t i : order)  // coordinate order, each coordinate once
    if (kept_index[i] != kDropped) sorted.push_back(kept_index[i]);
  nodes_.clear();
  values_.clear();
  build_node(sorted, 0, sorted.size(), 0);
}

std::uint32_t KernelGrid::build_node(const std::vector<std::uint32_t>& sorted, std::size_t begin, std::size_t end,
                                     int level) {
  // The node for sorted[begin, end), all equal in the coordinates before `level`.
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  const auto axis = static_cast<std::size_t>(level);
  std::size_t i = begin;
  while (i < end) {
    const double key = points_[sorted[i]].at[axis];
    std::size_t j = i;
    while (j < end && points_[sorted[j]].at[axis] == key) ++j;
    std::uint32_t child = 0;
    if (level + 1 == dims_) {
      child = static_cast<std::uint32_t>(values_.size());
      values_.push_back(points_[sorted[i]].latency_s);
    } else {
      child = build_node(sorted, i, j, level + 1);
    }
    nodes_[index].keys.push_back(key);
    nodes_[index].child.push_back(child);
    i = j;
  }
  return index;
}

double KernelGrid::eval(const KernelCoord& q, const KernelSol& sol) const {
  SS_ASSERT(!nodes_.empty(), "KernelGrid::finish() not called");
  return eval_node(0, 0, q, sol);
}

double KernelGrid::eval_node(std::uint32_t node_index, int level, KernelCoord q, const KernelSol& sol) const {
  const Node& node = nodes_[node_index];
  const auto axis = static_cast<std::size_t>(level);
  const bool leaf = level + 1 == dims_;
  auto child_at = [&](std::size_t i) {
    KernelCoord c = q;
    c[axis] = node.keys[i];
    return leaf ? values_[node.child[i]] : eval_node(node.child[i], level + 1, c, sol);
  };
  const double x = q[axis];
  const std::vector<double>& keys = node.keys;
  if (x <= keys.front() || x >= keys.back()) {
    const std::size_t i = x <= keys.front() ? 0 : keys.size() - 1;
    const double at_key = child_at(i);
    if (x == keys[i]) return at_key;
    // Outside the measured range: hold the nearest point's utilisation.
    KernelCoord c = q;
    c[axis] = keys[i];
    return at_key * sol(q) / sol(c);
  }
  const std::size_t hi = static_cast<std::size_t>(std::upper_bound(keys.begin(), keys.end(), x) - keys.begin());
  const std::size_t lo = hi - 1;
  if (keys[lo] == x) return child_at(lo);
  const double t = (x - keys[lo]) / (keys[hi] - keys[lo]);
  const double a = child_at(lo);
  const double b = child_at(hi);
  if (sqrt_axes_[axis]) {
    const double r = std::sqrt(a) + t * (std::sqrt(b) - std::sqrt(a));
    return r * r;
  }
  return a + t * (b - a);
}

bool KernelGrid::covers(const KernelCoord& q) const { return !nodes_.empty() && covers_node(0, 0, q); }

bool KernelGrid::covers_node(std::uint32_t node_index, int level, const KernelCoord& q) const {
  const Node& node = nodes_[node_index];
  const double x = q[static_cast<std::size_t>(level)];
  if (x < node.keys.front() || x > node.keys.back()) return false;
  if (level + 1 == dims_) return true;
  const auto hi = static_cast<std::size_t>(std::lower_bound(node.keys.begin(), node.keys.end(), x) - node.keys.begin());
  if (node.keys[hi] == x) return covers_node(node.child[hi], level + 1, q);
  return covers_node(node.child[hi - 1], level + 1, q) && covers_node(node.child[hi], level + 1, q);
}

}  // namespace servesim
