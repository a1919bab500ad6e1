#include "sim/hardware/nccl_all_reduce.h"

#include <algorithm>
#include <cstdint>

#include "sim/core/assert.h"

namespace servesim {

// Every figure below is NCCL's own, from src/graph/tuning.cc of NVIDIA/nccl at commit
// b647562 (ncclTopoTuneModel and ncclTopoGetAlgoTime), for an all-reduce on Hopper GPUs
// whose machines have an x86 Intel host (DGX H100/H200: dual Xeon Platinum 8480C, DGX
// H100 datasheet). Latencies are in microseconds, bandwidths in GB/s (1e9 B/s), as there.
namespace {

constexpr int kTree = 0, kRing = 1;  // NCCL_ALGO_TREE, NCCL_ALGO_RING
constexpr int kLl = 0, kLl128 = 1, kSimple = 2;  // NCCL_PROTO_LL, _LL128, _SIMPLE

// baseLat[algorithm][protocol]: fixed cost of one collective.
constexpr double kBaseLatUs[2][3] = {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}};
// hwLat[NCCL_HW_NVLINK][algorithm][protocol]: per step inside a machine over NVLink.
constexpr double kNvlinkLatUs[2][3] = {{.6, 1.25, 28}, {.6, 1.9, 3.4}};
// hwLat[NCCL_HW_NET][algorithm][protocol]: per step between machines.
constexpr double kNetLatUs[2][3] = {{5.0, 8.5, 28}, {2.7, 4.0, 14.0}};
// getNetOverhead on an x86 Intel host: 1 us per network post, 3x for Simple; an
// inter-node ring pays it at every step.
constexpr double kNetOverheadUs = 1.0;
// llMaxBws for multi-node groups, Intel row (N2 = 2 machines, N4 = more).
constexpr double kLlMaxBw[2] = {39.0, 20.4};
// Per-channel caps, Hopper rows (N2, N4): perChMaxTreeBws, perChMaxRingLL128Bws,
// perChMaxTreeLL128Bws.
constexpr double kPerChMaxTreeBw[2] = {41.4, 36.0};
constexpr double kPerChMaxRingLl128Bw[2] = {36.7, 36.7};
constexpr double kPerChMaxTreeLl128Bw[2] = {36.7, 29.0};
// treeCorrectionFactor[protocol][log2(bytes / 64)], 64 B to 256 MB: trees run below their
// model at medium sizes.
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

// NCCL's log2i: floor(log2(n)), 0 for n <= 1.
int log2i(std::int64_t n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

}  // namespace

const char* nccl_algorithm_name(NcclAlgorithm a) { return a == NcclAlgorithm::tree ? "tree" : "ring"; }

const char* nccl_protocol_name(NcclProtocol p) {
  return p == NcclProtocol::ll ? "LL" : p == NcclProtocol::ll128 ? "LL128" : "Simple";
}

double nccl_all_reduce_s(const NcclGroup& group, double bytes, NcclAlgorithm algorithm, NcclProtocol protocol) {
  SS_ASSERT(group.nodes >= 2 && group.ranks >= group.nodes, "an NCCL group across machines");
  SS_ASSERT(group.intra_bytes_per_s > 0 && group.network_bytes_per_s > 0, "links with a bandwidth");
  const int a = algorithm == NcclAlgorithm::tree ? kTree : kRing;
  const int p = protocol == NcclProtocol::ll ? kLl : protocol == NcclProtocol::ll128 ? kLl128 : kSimple;
  const int ranks = group.ranks, nodes = group.nodes;
  const int per_node = ranks / nodes;            // nRanks / nNodes, integer as in the tree latency
  const double ppn = static_cast<double>(ranks) / nodes;
  const int n4 = nodes <= 2 ? 0 : 1;             // the N2 or N4 column of the caps
  // Bus bandwidth: NCCL's topology search gives nChannels x bw per channel. servesim
  // does not run that search; it takes one channel per NIC (one NIC per GPU, as the
  // profiles' network figure states), each channel as fast as its slowest link: its
  // NIC, or its share of the GPU's NVLink. NCCL often finds more channels; the
  // per-channel caps below are then loose, never tighter.
  const double channels = per_node;
  const double nvlink_gb_s = group.intra_bytes_per_s / 1e9;
  const double network_gb_s = group.network_bytes_per_s / 1e9;
  double bus = channels * std::min(network_gb_s, nvlink_gb_s / channels);
  const double ll_max = kLlMaxBw[n4];
  if (a == kRing && p == kLl) bus = std::min(ll_max, bus / 4.0);
  if (a == kRing && p == kLl128) bus = std::min(bus * (ppn < 2 ? 0.7 : 0.92), channels * kPerChMaxRingLl128Bw[n4]);
  if (a == kTree) bus = std::min(bus * .92, channels * kPerChMaxTreeBw[n4]);
  if (a == kTree && p == kLl) bus = std::min(bus / 3.8, ll_max);
  if (a == kTree && p == kLl128) bus = std::min(bus * 120.0 / 128.0, channels * kPerChMaxTreeLl128Bw[n4]);
  // Bus to algorithm bandwidth: a ring all-reduce moves 2 (n - 1) / n of the buffer per
  // GPU; a tree moves the buffer up and down again.
  const int steps = 2 * (ranks - 1);
  double bw = a == kRing ? bus * ranks / steps : bus * .5;

  double lat = kBaseLatUs[a][p];
  double intra = kNvlinkLatUs[a][p];
  const double inter = kNetLatUs[a][p];  // + the graph's latencyInter, 0 for InfiniBand
  if (a == kRing) {
    // A ring's 2 (n - 1) steps: 2 x machines of them cross the network, the rest NVLink
    // (each no faster than the network post that paces the ring).
    intra = std::max(intra, p == kSimple ? 3 * kNetOverheadUs : kNetOverheadUs);
    const int inter_steps = 2 * nodes;
    lat += (steps - inter_steps) * intra + inter_steps * inter;
  } else {
    // Up and down a chain inside each machine and a tree of depth log2(machines) across.
    lat += 2 * ((per_node - 1) * intra + log2i(nodes) * inter);
  }
  const int log_size = log2i(static_cast<std::int64_t>(bytes) >> 6);
  if (a == kTree && log_size < 23) bw *= kTreeCorrection[p][log_size];
  // The plateau of an inter-node Simple ring (compute capability >= 8.0).
  if (a == kRing && p == kSimple && bytes / (channels * ranks) >= 64) lat *= 1.4;
  return (lat + bytes / (1000.0 * bw)) * 1e-6;
}

NcclPrice nccl_all_reduce(const NcclGroup& group, double bytes) {
  // NCCL walks the algorithms, then the protocols, and keeps the first strictly cheaper.
  static constexpr const char* kLabels[2][3] = {{"tree/LL", "tree/LL128", "tree/Simple"},
                                                {"ring/LL", "ring/LL128", "ring/Simple"}};
  NcclPrice best;
  bool first = true;
  for (const NcclAlgorithm a : {NcclAlgorithm::tree, NcclAlgorithm::ring}) {
    for (const NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
      const double t = nccl_all_reduce_s(group, bytes, a, p);
      if (first || t < best.time_s) {
        best = {t, a, p, kLabels[a == NcclAlgorithm::tree ? 0 : 1][static_cast<int>(p)]};
        first = false;
      }
    }
  }
  return best;
}

}  // namespace servesim
