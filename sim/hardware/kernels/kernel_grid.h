#pragma once
// Measured latencies on a grid of up to three coordinates (a kernel table's rows for one
// key), read back at any point the way NVIDIA's aiconfigurator reads its tables
// (aic-core/rust/aiconfigurator-core/src/perf_database/perf_interp.rs):
// - inside the measured range of a coordinate, linear interpolation between the two
//   bracketing measured values (of the latency, or of its square root along an axis where
//   the cost grows with the square of the coordinate, like prefill attention's length);
// - outside it, the utilisation (roofline time / measured time) of the nearest measured
//   value is held, and the latency scales with the roofline: lat(q) = lat(c) x sol(q) / sol(c).
// The grid need not be complete: each coordinate's values are those measured under the
// values of the coordinates before it.
#include <array>
#include <cstdint>
#include <vector>

namespace servesim {

using KernelCoord = std::array<double, 3>;
// Roofline (speed-of-light) seconds of the kernel at a coordinate; > 0. An interface, not
// std::function, so that a lookup per engine step allocates nothing.
class KernelSol {
 public:
  virtual double operator()(const KernelCoord& at) const = 0;

 protected:
  ~KernelSol() = default;
};
template <class F>
class SolOf final : public KernelSol {
 public:
  explicit SolOf(F f) : f_(f) {}
  double operator()(const KernelCoord& at) const override { return f_(at); }

 private:
  F f_;
};

class KernelGrid {
 public:
  // `dims` coordinates (1..3); sqrt_axes[i]: interpolate sqrt(latency) along axis i.
  explicit KernelGrid(int dims = 1, std::array<bool, 3> sqrt_axes = {false, false, false});

  // One measured point. A coordinate measured twice keeps its first latency, as
  // aiconfigurator does (the tables' repeats differ by 2-6%).
  void add(const KernelCoord& at, double latency_s);
  // Builds the index; call once after the last add. REQUIRES: at least one point.
  void finish();
  bool empty() const { return points_.empty(); }
  std::size_t size() const { return points_.size(); }

  // Latency at `q` (seconds). REQUIRES: finish() was called.
  double eval(const KernelCoord& q, const KernelSol& sol) const;
  // True when every coordinate of `q` lies within the measured range along its axis, i.e.
  // no extrapolation was needed.
  bool covers(const KernelCoord& q) const;

  // Every measured point, in the order first added (for leave-one-out checks).
  struct Point {
    KernelCoord at;
    double latency_s;
  };
  const std::vector<Point>& points() const { return points_; }

 private:
  struct Node {
    std::vector<double> keys;           // sorted measured values of this level's coordinate
    std::vector<std::uint32_t> child;   // per key: the node one level down, or at the last
                                        // level the latency's index in values_
  };
  static constexpr std::uint32_t kDropped = ~std::uint32_t{0};  // a repeated coordinate's later row
  std::uint32_t build_node(const std::vector<std::uint32_t>& sorted, std::size_t begin, std::size_t end, int level);
  double eval_node(std::uint32_t node, int level, KernelCoord q, const KernelSol& sol) const;
  bool covers_node(std::uint32_t node, int level, const KernelCoord& q) const;

  int dims_;
  std::array<bool, 3> sqrt_axes_;
  std::vector<Point> points_;
  std::vector<Node> nodes_;     // nodes_[0] is the root
  std::vector<double> values_;
};

}  // namespace servesim
