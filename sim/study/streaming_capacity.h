#pragma once
// Whether a run streamed tokens faster than one API-server process can write them. The
// front end is modelled as a delay (docs/engine.md, "Front-end latency"), not as a queue:
// when a replica's engine emits more tokens per second than its API server's CPU can turn
// into chunks (overheads.frontend.per_streamed_token each), the client gets several tokens
// per chunk and longer gaps than the run reports. This names the pools where that happened.
#include <string>
#include <vector>

#include "sim/metrics/summary.h"
#include "sim/scenario/scenario.h"

namespace servesim {

// One line per fixed-size pool whose mean output tokens per second per replica exceeded
// 1 / per_streamed_token, e.g. "pool main streamed 31000 tokens/s per replica ..."; none
// when every pool kept within it or prices no per_streamed_token. Autoscaled pools, whose
// replica count varies, are not judged.
std::vector<std::string> streaming_capacity_notes(const Scenario& scenario, const RunSummary& summary);

}  // namespace servesim
