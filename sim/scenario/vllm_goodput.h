#pragma once
// vLLM's goodput objectives as `vllm bench serve --goodput` takes them, for `servesim run
// --goodput` (docs/metrics.md, "SLOs and goodput"): "ttft:200 tpot:50 e2el:1000", KEY:VALUE
// pairs with KEY one of ttft, tpot, e2el and VALUE a number of MILLISECONDS, as vLLM
// defines it. This is the one place a bare number is read as a duration; it is labelled
// vLLM's so nobody meets it by accident. A request is good when each named figure of its
// own is <= its bound.
#include <string>
#include <vector>

#include "sim/workload/workload_config.h"

namespace servesim {

// `tokens`: the option's values, each holding one or more whitespace-separated pairs. A
// value may also carry a unit ("ttft:2s"). Throws ConfigError("", 0, "--goodput", ...)
// naming the pair and the accepted form.
SloSpec parse_vllm_goodput(const std::vector<std::string>& tokens);

}  // namespace servesim
