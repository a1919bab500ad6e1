// make_source: picks the source of one workload class from its spec.
//   trace azure | vidur       -> CsvTraceSource (the file's own timestamps; no `arrival`)
//   trace lengths             -> the file's lengths with the class's `arrival` (required):
//                                open loop (SyntheticSource) or closed loop
//   no trace, arrival closed  -> ClosedLoopSource with sampled lengths
//   no trace, otherwise       -> SyntheticSource with sampled lengths
// Random streams are named "workload/<class>/arrival", ".../input", ".../output" and
// ".../think", so changing one distribution never shifts another's draws.
#include <string>

#include "sim/core/errors.h"
#include "sim/workload/arrival_process.h"
#include "sim/workload/azure_trace_source.h"
#include "sim/workload/closed_loop_source.h"
#include "sim/workload/lengths_file.h"
#include "sim/workload/sampled_lengths.h"
#include "sim/workload/synthetic_source.h"
#include "sim/workload/vidur_trace_source.h"

namespace servesim {
namespace {

std::string stream(const ClassSpec& spec, const char* what) { return "workload/" + spec.name + "/" + what; }

std::string key(const ClassSpec& spec, const std::string& field) { return "workload." + spec.name + "." + field; }

std::unique_ptr<LengthSource> sampled_lengths(const ClassSpec& spec, std::uint64_t seed) {
  if (!spec.input) throw ConfigError("", 0, key(spec, "input"), "is required for a class without a trace");
  if (!spec.output) throw ConfigError("", 0, key(spec, "output"), "is required for a class without a trace");
  return std::make_unique<SampledLengths>(make_distribution(*spec.input), make_distribution(*spec.output),
                                          Rng(seed, stream(spec, "input")), Rng(seed, stream(spec, "output")));
}

// Combines an arrival pattern (open or closed) with a length origin.
std::unique_ptr<RequestSource> with_arrivals(const ClassSpec& spec, int class_index, std::uint64_t seed,
                                             std::unique_ptr<LengthSource> lengths) {
  const ArrivalSpec& arrival = *spec.arrival;
  if (arrival.process == ArrivalSpec::Process::closed) {
    if (arrival.concurrency < 1) {
      throw ConfigError("", 0, key(spec, "arrival.concurrency"), "a closed loop needs at least one user");
    }
    std::unique_ptr<Distribution> think;
    if (arrival.think_time_s) think = make_distribution(*arrival.think_time_s);
    return std::make_unique<ClosedLoopSource>(arrival.concurrency, std::move(think), Rng(seed, stream(spec, "think")),
                                              std::move(lengths), class_index);
  }
  return std::make_unique<SyntheticSource>(make_arrival_process(arrival, spec.name, Rng(seed, stream(spec, "arrival"))),
                                           std::move(lengths), class_index);
}

std::unique_ptr<RequestSource> trace_source(const ClassSpec& spec, int class_index, std::uint64_t seed) {
  const TraceSpec& trace = *spec.trace;
  if (trace.format == "lengths") {
    if (!spec.arrival) {
      throw ConfigError(trace.path, 0, key(spec, "arrival"),
                        "a length-only trace has no timestamps; give the class an `arrival` process");
    }
    return with_arrivals(spec, class_index, seed, std::make_unique<LengthsFile>(trace.path));
  }
  if (trace.format == "azure" || trace.format == "vidur") {
    if (spec.arrival) {
      throw ConfigError(trace.path, 0, key(spec, "arrival"),
                        "a " + trace.format + " trace carries its own timestamps; remove `arrival` "
                        "(or use format lengths to replay only its lengths)");
    }
    return trace.format == "azure" ? make_azure_trace_source(trace.path, trace.speedup, class_index)
                                   : make_vidur_trace_source(trace.path, trace.speedup, class_index);
  }
  throw ConfigError(trace.path, 0, key(spec, "trace.format"),
                    "unknown or unsupported trace format '" + trace.format + "' (valid: azure, vidur, lengths)");
}

}  // namespace

std::unique_ptr<RequestSource> make_source(const ClassSpec& spec, int class_index, std::uint64_t seed) {
  if (spec.trace) return trace_source(spec, class_index, seed);
  if (!spec.arrival) throw ConfigError("", 0, key(spec, "arrival"), "is required for a class without a trace");
  return with_arrivals(spec, class_index, seed, sampled_lengths(spec, seed));
}

}  // namespace servesim
