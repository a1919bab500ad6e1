#pragma once
// What `servesim calibrate --from-benchmark` prints and writes (sim/study/benchmark_calibration.h):
// the fitted overheads against the start, the figures after the fit (from requests) or
// before and after per stage (from aggregates), the knobs the benchmark cannot identify,
// and the engine profile handed over to standard output or a file.
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/study/benchmark_calibration.h"

namespace servesim {

// The split, each knob start -> fitted, the search's cost, then the replay's figures
// after the fit on the requests fitted on and on those held out.
void print_overhead_fit(const OverheadCalibration& fit, std::ostream& out);

// The split, each knob start -> fitted (or "not fitted"), then per stage the figures
// measured, before and after the fit, with signed errors.
void print_summary_fit(const SummaryCalibration& fit, std::ostream& out);

// "servesim calibrate: warning: KNOB is not identifiable from SOURCE: WHY; ..." per knob,
// with the setting under which it would show.
void print_unidentified_knobs(const std::vector<UnidentifiedKnob>& unidentified, const std::string& source,
                              std::ostream& err);

// The notes and mismatches of a file of aggregates against the scenario's workload, as
// warnings when `force`. Returns false (after saying why) when the fit must not go on.
bool print_summary_workload_check(const SummaryWorkloadCheck& check, const std::string& bench_path, bool force,
                                  std::ostream& err);

// "aggregates only (calibrate; the same names):" and each format of a file of aggregates
// with the tool that writes it.
void print_benchmark_summary_formats(std::ostream& out);

// The engine profile's YAML (engine_profile_writer.h) with what made it.
std::string engine_profile_text(const OverheadCalibration& fit, const std::string& command,
                                const std::string& base_preset, const std::string& benchmark);

// Without `output`, the YAML on `out` and `report` on `err`; with it, the file written
// whole or not at all, then `benchmark`, `report` and "wrote FILE" on `out`.
void emit_engine_profile(const std::string& yaml, const std::string& output, const std::string& benchmark,
                         const std::string& report, std::ostream& out, std::ostream& err);

}  // namespace servesim
