#pragma once
// servesim's public face: what a program other than the `servesim` command (the benchmarks
// in bench/, a Python binding, a notebook's extension) calls, and the types it gets back.
// Everything else under sim/ is the implementation and may change without notice; none of
// the engine's or the cluster's headers is reachable from here (tests/api checks it), so a
// program built on this header sees requests and results, never the replicas that made them.
//
//   auto s = servesim::ScenarioFile::load("scenarios/quickstart.yaml", {"stop.requests=500"});
//   servesim::RunOutcome one = servesim::run_scenario(s);           // summary + counts
//   one.result.summary.overall.get("p99_ttft_ms");
//   servesim::write_summary_json(one.result.summary, std::cout);     // summary.json
//
//   servesim::SweepRequest sweep;  sweep.scenario_path = ...; sweep.axes = {parse_axis("...")};
//   servesim::SweepStudy table = servesim::run_sweep(sweep);        // sweep.csv's rows
//   servesim::CapacityRequest cap; ...; run_capacity(cap, plan_capacity(cap));
//   servesim::SearchRequest search; ...; run_search(search);
//
// Bad input throws servesim::ConfigError (file, line, key, message), the same text the CLI
// prints before exiting 2. Runs are deterministic: the same scenario and seed give the same
// summary, bit for bit, on any number of threads.

// Errors.
#include "sim/core/errors.h"  // ConfigError, format_config_error

// Scenarios: loading and validating YAML (with --set overrides), models and hardware.
#include "sim/scenario/model_loader.h"     // load_model, load_hardware
#include "sim/scenario/scenario_file.h"    // ScenarioFile: a scenario read and validated
#include "sim/scenario/run_size.h"         // long_run_warning: a run that cannot finish, said before it starts
#include "sim/scenario/servability.h"      // check_servability: what `run` refuses or warns of

// One run, and its summary as summary.json writes it.
#include "sim/report/summary_writer.h"  // summary_to_json, write_summary_json
#include "sim/study/replicates.h"       // run_replicates: a figure's interval over seeds
#include "sim/study/run_study.h"        // run_scenario, RunOutcome, EngineStats

// One run with the files `servesim run` writes (summary.json, requests.csv, ...).
#include "sim/report/run_files.h"  // run_to_files, RunFilesOptions, RunInterrupted
#include "sim/report/nothing_served.h"  // nothing_served_message: a run that completed nothing

// Studies, and their results as the CLI writes them.
#include "sim/report/capacity_report.h"  // capacity_to_json
#include "sim/report/search_report.h"    // search_report_to_json
#include "sim/report/compare_report.h"   // comparison_to_json, print_comparison
#include "sim/report/explain_report.h"   // explain_to_json, explain_text
#include "sim/study/cache_curve_study.h" // run_cache_curve
#include "sim/study/capacity_study.h"    // plan_capacity, run_capacity
#include "sim/study/compare_study.h"     // compare_files, Tolerances
#include "sim/scenario/percent.h"        // parse_percent: "5%" as the CLI reads it
#include "sim/study/explain_study.h"     // run_explain
#include "sim/study/search_study.h"      // run_search
#include "sim/study/sweep_study.h"       // run_sweep, parse_axis, write_sweep_csv

// Pricing one engine step (what `servesim step` shows).
#include "sim/hardware/cost_model_spec.h"  // make_cost_model, CostModelSpec, BatchShape
#include "sim/report/step_report.h"        // step_to_json
#include "sim/study/step_study.h"          // price_step, StepRequest

// A real benchmark run replayed through a deployment (`servesim replay`), and the engine's
// overheads fitted to it (`servesim calibrate --from-benchmark`).
#include "sim/report/benchmark_calibration_outcome.h"  // calibrate_from_benchmark
#include "sim/report/atomic_write.h"                   // write_file_atomically: the profile, whole or not at all
#include "sim/report/replay_outcome.h"                 // replay_benchmark, ReplayRequest
// A hardware profile's roofline fitted to measured steps or kernel tables (`servesim calibrate`).
#include "sim/report/calibration_report.h"  // measured_fit_profile, kernel_fit_profile, emit_fitted_profile
#include "sim/study/roofline_calibration.h" // calibrate_to_measurements, calibrate_to_kernel_tables

// The self-contained HTML page of a run or sweep folder (`servesim report`).
#include "sim/report/html_report.h"  // html_report
#include "sim/study/scenario_context_text.h"  // scenario_context_text: what the page's header says of a run
