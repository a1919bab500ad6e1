#pragma once
// An all-reduce whose group spans machines, priced the way NCCL prices it when it picks an
// algorithm and a protocol: NCCL's own cost model (src/graph/tuning.cc, ncclTopoTuneModel
// and ncclTopoGetAlgoTime), latency + bytes / algorithm bandwidth for ring and tree under
// each of the LL, LL128 and Simple protocols, the cheapest of the six chosen, as NCCL
// does for every call (docs/cost-model.md, "Across machines").
//
// A collective that leaves the NVLink domain cannot use the engines' custom all-reduce
// (it peers GPU memory over NVLink), so NCCL is what runs it.
namespace servesim {

struct NcclGroup {
  int ranks = 0;                     // GPUs in the group (tp)
  int nodes = 0;                     // machines it spans: ceil(ranks / domain GPUs)
  double intra_bytes_per_s = 0;      // per GPU, one direction, inside a machine (NVLink)
  double network_bytes_per_s = 0;    // per GPU, one direction, between machines (one NIC per GPU)
};

enum class NcclAlgorithm { tree, ring };
enum class NcclProtocol { ll, ll128, simple };

const char* nccl_algorithm_name(NcclAlgorithm a);  // "tree" | "ring"
const char* nccl_protocol_name(NcclProtocol p);    // "LL" | "LL128" | "Simple"

struct NcclPrice {
  double time_s = 0;
  NcclAlgorithm algorithm = NcclAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  const char* label = "";  // "ring/LL128" and the like, for reports
};

// Time of one all-reduce of `bytes` (the buffer, not what each GPU sends) under one
// algorithm and protocol. REQUIRES: group.nodes >= 2, group.ranks >= group.nodes.
double nccl_all_reduce_s(const NcclGroup& group, double bytes, NcclAlgorithm a, NcclProtocol p);

// The cheapest of the six, which NCCL's tuner picks for this size.
NcclPrice nccl_all_reduce(const NcclGroup& group, double bytes);

}  // namespace servesim
