#pragma once
// Whether a loaded scenario can serve anything, checked before anything runs: the one check
// `validate`, `run` and the Python API's run share (docs/scenario.md, "Checks before a
// run"). It builds the Simulation `run` builds (so whatever only construction checks, an
// unknown policy or router, a topology without a path, is refused at its line too), and
// refuses, with the file, line and key to change and the fix:
//   - a pool whose weights and activation reserve exceed its GPUs' memory, naming the
//     smallest tp (or pp, or weight format) that fits (engine/memory_fit.h);
//   - a class none of whose requests its pool can serve: its smallest request longer than
//     the model's context (unless engine.on_context_overflow truncates it) or needing more
//     KV blocks than a replica holds; a trace with no requests (a header and no rows).
// and it warns, with the share, when only some of a class's requests will be rejected for
// those reasons (the share worked out from the length distributions, length_bounds.h; for
// a trace, the count of its requests the run reads).
// Sweeps and searches do not call it: a point that cannot be built is a row of their table.
#include <string>
#include <vector>

namespace servesim {

struct Scenario;

struct Servability {
  // "file:line:col: key: message", one per class with a share of requests rejected.
  std::vector<std::string> warnings;
};

// `overrides`: the --set list the scenario was loaded with, so that findings are placed at
// the line that wrote the value (or at "--set"). Throws ConfigError at the key to change.
Servability check_servability(const Scenario& scenario, const std::vector<std::string>& overrides);

}  // namespace servesim
