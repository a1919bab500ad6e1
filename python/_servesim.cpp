// The Python extension behind `import servesim` (python/servesim/__init__.py): each study of
// the public header (include/servesim/servesim.h) as a function that takes plain values and
// returns what the CLI would write: results as Python values (the dicts of the CLI's --json,
// built in memory: py_values.h), tables as CSV text, file paths; the Python layer adds
// pandas DataFrames. The binding fills each study's request from the arguments as the CLI
// fills it from its options, and the study (or the path from request to result the CLI
// shares, as for replay and calibrate) checks it; step's decode groups are read here as
// the CLI reads --decode B:CTX. The GIL is
// released while simulating; Ctrl-C stops a run at its next finished request, and a sweep or
// search after its runs under way (py_progress.h), and raises KeyboardInterrupt.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <csignal>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "servesim/servesim.h"
#include "py_progress.h"
#include "py_values.h"

namespace py = pybind11;
using servesim_python::to_python;

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) { g_interrupted.store(true); }

// Catches SIGINT for the duration of a run on Python's main thread, where Python's own
// handler could not run while the GIL is released; restores the previous handler after.
class SigintScope {
 public:
  SigintScope() {
    g_interrupted.store(false);
    const py::module_ threading = py::module_::import("threading");
    active_ = threading.attr("current_thread")().is(threading.attr("main_thread")());
    if (!active_) return;
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_);
  }
  ~SigintScope() {
    if (active_) sigaction(SIGINT, &previous_, nullptr);
  }
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;

 private:
  bool active_ = false;
  struct sigaction previous_ {};
};

// Runs `study` with the GIL released: other Python threads go on while it simulates.
template <class Study>
auto without_gil(Study&& study) {
  py::gil_scoped_release release;
  return study();
}

// Runs `study` with the GIL released and Ctrl-C caught, `progress` told of each run; a
// study stopped by Ctrl-C or by the progress callable raises that in Python.
template <class Study>
auto stoppable(servesim_python::StudyProgress& progress, Study&& study) {
  SigintScope sigint;
  try {
    return without_gil(study);
  } catch (const servesim_python::StudyStopped&) {
    progress.raise_stopped();
  }
}

py::dict run(const std::string& scenario_path, const std::vector<std::string>& sets,
             std::optional<std::uint64_t> seed, int replicates, const std::string& out_dir) {
  servesim::ScenarioFile scenario = servesim::ScenarioFile::load(scenario_path, sets);
  if (seed) scenario.set_seed(*seed);
  // Refuses what `servesim run` refuses; its warnings go back to Python.
  const servesim::Servability servable = servesim::check_servability(scenario, sets);
  // A run far longer than any documented one is said before it starts, as `servesim run` does.
  if (const std::string warning = servesim::long_run_warning(scenario); !warning.empty())
    if (PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 2) < 0) throw py::error_already_set();
  servesim::RunFilesOptions options;
  options.out_dir = out_dir;
  options.replicates = replicates;
  options.interrupt = &g_interrupted;
  servesim::RunFilesOutcome outcome;
  {
    SigintScope sigint;
    py::gil_scoped_release release;
    outcome = servesim::run_to_files(scenario, options);
  }
  py::dict d;
  d["written"] = outcome.written;
  // summary.json's content, from the run itself rather than read back from the file.
  d["summary"] = to_python(servesim::summary_file_json(outcome.result.summary,
                                                       outcome.intervals ? &*outcome.intervals : nullptr));
  d["warnings"] = servable.warnings;
  // A run that completed nothing, as `servesim run` tells it ("" otherwise).
  d["nothing_served"] = outcome.result.completed == 0 ? servesim::nothing_served_message(outcome.result) : "";
  d["wall_s"] = outcome.wall_s;
  // What was simulated, for the run's HTML page (Result.to_html), as run_context.json says it.
  d["context"] = servesim::scenario_context_text(scenario);
  d["name"] = scenario.name();
  d["seed"] = scenario.seed();
  d["classes"] = scenario.class_names();
  d["pools"] = scenario.pool_names();
  return d;
}

// The sweep's table as sweep.csv (format "csv") or sweep.json ("json") text; with
// shard_count > 1, only the points of shard `shard_index` (`servesim sweep --shard I/N`).
// `on_progress(done, total)` (or None) as each point's run ends.
std::string sweep(const std::string& scenario_path, const std::vector<std::string>& axes, bool zip, int jobs,
                  const std::vector<std::string>& sets, std::optional<std::uint64_t> seed, int replicates,
                  std::size_t shard_index, std::size_t shard_count, const std::string& format, py::object on_progress) {
  servesim::SweepRequest request;
  if (shard_count > 1) request.shard = servesim::parse_shard(std::to_string(shard_index) + "/" + std::to_string(shard_count));
  request.scenario_path = scenario_path;
  for (const std::string& axis : axes) request.axes.push_back(servesim::parse_axis(axis));
  request.mode = zip ? servesim::SweepMode::zip : servesim::SweepMode::product;
  request.sets = sets;
  request.seed = seed;
  request.replicates = replicates;
  request.jobs = jobs;
  servesim_python::StudyProgress progress(std::move(on_progress), &g_interrupted);
  const servesim::SweepStudy study = stoppable(progress, [&] {
    return servesim::run_sweep(
        request, [&](const servesim::SweepTable& table) { progress.start(static_cast<std::size_t>(table.points)); },
        [&](std::size_t, const servesim::RunSummary*, const std::string&) { progress.one_done(); });
  });
  std::ostringstream text;
  if (format == "json") {
    servesim::write_sweep_json(study.table, text);
  } else {
    servesim::write_sweep_csv(study.table, text);
  }
  return text.str();
}

// The shards' sweep.json files joined into the unsharded sweep's sweep.csv text (`servesim
// merge`): the same table, byte for byte.
std::string merge(const std::vector<std::string>& shard_paths) {
  std::vector<servesim::SweepTable> tables;
  for (const std::string& path : shard_paths) tables.push_back(servesim::read_sweep_table(path));
  const servesim::SweepTable merged = servesim::merge_sweep_tables(tables, shard_paths, false);
  std::ostringstream csv;
  servesim::write_sweep_csv(merged, csv);
  return csv.str();
}

py::object capacity(const std::string& scenario_path, const std::vector<std::string>& sets,
                     const std::string& class_name, const std::string& slo, double tolerance,
                     double max_rejected, std::optional<std::uint64_t> seed, int replicates,
                     const std::string& objective) {
  servesim::CapacityRequest request;
  request.scenario_path = scenario_path;
  request.sets = sets;
  request.class_name = class_name;
  request.slo_text = slo;
  request.tolerance = tolerance;
  request.reject_share = max_rejected;
  request.seed = seed;
  request.replicates = replicates;
  request.objective = objective;
  const servesim::CapacityPlan plan = servesim::plan_capacity(request);
  const servesim::CapacityStudy study = without_gil([&] { return servesim::run_capacity(request, plan); });
  return to_python(servesim::capacity_to_json(study, request.sustain_tolerance));
}

py::object search(const std::string& scenario_path, const std::string& space_path,
                   const std::vector<std::string>& sets, const std::string& class_name, std::optional<double> rate,
                   const std::string& slo, const std::string& prices, int jobs, std::optional<std::uint64_t> seed,
                   int replicates, const std::string& objective, py::object on_progress) {
  servesim::SearchRequest request;
  request.scenario_path = scenario_path;
  request.space_path = space_path;
  request.sets = sets;
  request.class_name = class_name;
  request.rate = rate;
  request.slo_text = slo;
  request.price_text = prices;
  request.jobs = jobs;
  request.seed = seed;
  request.replicates = replicates;
  request.objective = objective;
  servesim_python::StudyProgress progress(std::move(on_progress), &g_interrupted);
  const servesim::SearchReport report = stoppable(progress, [&] {
    return servesim::run_search(
        request, [&](const servesim::SearchReport& loaded) { progress.start(loaded.candidates.size()); },
        [&](std::size_t, bool, const std::string&) { progress.one_done(); });
  });
  return to_python(servesim::search_report_to_json(report));
}

// The lines a study wrote on its error stream, one a line, without the last newline.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A benchmark run replayed through the deployment (`servesim replay`): "report" is --json's
// document as Python values, "table" the console table, "warnings" the lines the CLI
// prints on standard error. A benchmark of another deployment, not forced, raises
// ConfigError with the lines the CLI prints before its exit 2.
py::dict replay(const servesim::ReplayRequest& request) {
  std::ostringstream err;
  const servesim::ReplayOutcome outcome =
      without_gil([&] { return servesim::replay_benchmark(request, "servesim replay", err); });
  if (outcome.refused) {
    std::string text = err.str();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    throw servesim::ConfigError("", 0, "", text);
  }
  std::vector<std::string> warnings = lines_of(err.str());
  if (!outcome.shortfall.empty()) warnings.push_back("servesim replay: warning: " + outcome.shortfall);
  py::dict d;
  d["report"] = to_python(outcome.json);
  d["table"] = outcome.table;
  d["warnings"] = warnings;
  return d;
}

// The engine's overheads fitted to a benchmark run (`servesim calibrate --from-benchmark`):
// "fit" as Python values, "profile" the engine profile's YAML ("" when no knob could be
// identified), "benchmark" and "report" what the CLI prints with it, "warnings" its lines
// on standard error. With `output`, the profile is written there as the CLI's -o writes it.
// A refusal (exit 2 on the CLI) raises ConfigError with the CLI's lines.
py::dict calibrate(const servesim::BenchmarkCalibrationRequest& request, const std::string& output) {
  std::ostringstream err;
  const servesim::BenchmarkCalibrationOutcome outcome =
      without_gil([&] { return servesim::calibrate_from_benchmark(request, err); });
  if (outcome.exit_code == 2) {
    std::string text = err.str();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    throw servesim::ConfigError("", 0, "", text);
  }
  if (!output.empty() && !outcome.profile.empty())
    servesim::write_file_atomically(output, "--output", [&](std::ostream& os) { os << outcome.profile; });
  py::dict d;
  d["fit"] = to_python(outcome.fit);
  d["profile"] = outcome.profile;
  d["benchmark"] = outcome.benchmark;
  d["report"] = outcome.report;
  d["warnings"] = lines_of(err.str());
  return d;
}

// A hardware profile fitted (`servesim calibrate --measurements` or `--from-kernels`): the
// profile's YAML and the fit's figures as the CLI prints them; with `output`, the profile
// written there by the CLI's own hand-over (emit_fitted_profile).
template <class Study>
py::dict fitted_hardware(const Study& study, const std::string& profile,
                         const std::function<void(std::ostream&)>& print_fit, const std::string& output) {
  std::ostringstream report, out;
  print_fit(report);
  if (!output.empty()) servesim::emit_fitted_profile(profile, output, print_fit, out, out);
  py::dict d;
  d["profile"] = profile;
  d["report"] = report.str();
  d["command"] = study.command;
  return d;
}

py::dict fit_hardware_to_measurements(const servesim::MeasuredFitRequest& request, const std::string& output) {
  const auto study = without_gil([&] { return servesim::calibrate_to_measurements(request); });
  return fitted_hardware(study, servesim::measured_fit_profile(request, study),
                         [&](std::ostream& to) { servesim::print_measured_fit(study.result, to); }, output);
}

py::dict fit_hardware_to_kernels(const servesim::KernelFitRequest& request, const std::string& output) {
  const auto study = without_gil([&] { return servesim::calibrate_to_kernel_tables(request); });
  return fitted_hardware(study, servesim::kernel_fit_profile(study),
                         [&](std::ostream& to) { servesim::print_kernel_fit(study.result, to); }, output);
}

// The explain study (`servesim explain --json`) as Python values.
py::object explain(const std::string& scenario_path, const std::vector<std::string>& sets,
                    std::optional<std::uint64_t> seed, int jobs) {
  servesim::ExplainRequest request;
  request.scenario_path = scenario_path;
  request.sets = sets;
  request.seed = seed;
  request.jobs = jobs;
  const servesim::ExplainStudy study = without_gil([&] { return servesim::run_explain(request); });
  return to_python(servesim::explain_to_json(study));
}

// Two summary.json files or sweep tables compared (`servesim compare --json`) as Python values;
// tolerances are fractions (0.05 for 5%), per figure in `per_field`.
py::object compare(const std::string& baseline, const std::string& candidate, double tolerance,
                    const std::map<std::string, double>& per_field) {
  servesim::Tolerances tolerances;
  tolerances.default_fraction = tolerance;
  for (const auto& [field, fraction] : per_field) tolerances.per_field[field] = fraction;
  return to_python(servesim::comparison_to_json(servesim::compare_files(baseline, candidate, tolerances)));
}

// One step priced (`servesim step --json`): prefills as (new tokens, cached tokens) pairs,
// decodes as (sequences, context tokens each) pairs. Returns the figures and the warnings
// `servesim step` prints (sim/cli/step_command.cpp), which the package gives as
// warnings.warn: a sequence beyond the model's context, and the table release that stood
// in for the one asked for (or the roofline that priced the step after all).
std::pair<py::object, std::vector<std::string>> step(const std::string& model, const std::string& hardware, int tp, int pp, int ep,
                 int micro_batches, const std::string& weights, const std::string& kv, const std::string& activations,
                 const std::vector<std::pair<std::int64_t, std::int64_t>>& prefills,
                 const std::vector<std::pair<std::int64_t, std::int64_t>>& decodes, const std::string& cost_model,
                 const std::string& engine, const std::string& engine_version, int cuda_graphs) {
  servesim::StepRequest request;
  request.model = model;
  request.hardware = hardware;
  request.dep.tp = tp;
  request.dep.pp = pp;
  request.dep.ep = ep;
  request.dep.micro_batches = micro_batches;
  constexpr std::int64_t kMaxCount = 1'000'000'000;  // as the CLI caps counts: products stay inside int64
  // Every value is checked by price_step (check_step_request), as the CLI's step is.
  request.dep.weights = servesim::parse_step_dtype(weights, "weights");
  request.dep.kv = servesim::parse_step_dtype(kv, "kv");
  request.dep.activations = servesim::parse_step_dtype(activations, "activations");
  for (const auto& [tokens, cached] : prefills) request.batch.prefills.push_back({tokens, cached, true});
  for (const auto& [seqs, context] : decodes) {
    // A group's sequences and context are read as the CLI reads --decode B:CTX.
    if (seqs < 1 || seqs > kMaxCount)
      throw servesim::ConfigError("", 0, "decode", "B must be a whole number from 1 to 1000000000, got " + std::to_string(seqs));
    if (context < 0 || context > kMaxCount)
      throw servesim::ConfigError("", 0, "decode", "CTX must be a whole number from 0 to 1000000000, got " + std::to_string(context));
    request.batch.decode_seqs += seqs;
    request.batch.decode_context_sum += seqs * context;
  }
  request.cost_model = cost_model;
  request.engine = engine;
  request.engine_version = engine_version;
  request.cuda_graph_max_batch = cuda_graphs;
  std::int64_t longest_tokens = 0;  // the longest sequence once this step is done
  for (const auto& [tokens, cached] : prefills) longest_tokens = std::max(longest_tokens, tokens + cached);
  for (const auto& [seqs, context] : decodes) longest_tokens = std::max(longest_tokens, context + 1);
  const servesim::StepStudy priced = servesim::price_step(request);
  std::vector<std::string> warnings;
  if (priced.model.max_context_tokens > 0 && longest_tokens > priced.model.max_context_tokens)
    warnings.push_back("a sequence reaches " + std::to_string(longest_tokens) + " tokens, beyond " + priced.model.name +
                       "'s context of " + std::to_string(priced.model.max_context_tokens) +
                       " (max_context_tokens): an engine serving it refuses such a request");
  // The CLI says this when --engine, --engine-version or --cuda-graphs was given; here, when
  // an argument differs from its default (engine "vllm", the engine's own release, no size).
  const bool engine_options = engine != "vllm" || !engine_version.empty() || cuda_graphs != 0;
  if (engine_options && !priced.cost_model_note.empty())
    warnings.push_back((priced.cost_model.rfind("roofline", 0) == 0
                            ? "the roofline priced the step, so engine, engine_version and cuda_graphs had no effect; "
                            : "") +
                       priced.cost_model_note);
  return {to_python(servesim::step_to_json(priced)), warnings};
}

}  // namespace

PYBIND11_MODULE(_servesim, m) {
  m.doc() = "servesim's C++ library; use the `servesim` package, not this module";
  // The CLI's message (file, line, key, did-you-mean), as a ValueError.
  static py::exception<servesim::ConfigError> config_error(m, "ConfigError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const servesim::ConfigError& e) {
      config_error(e.what());
    } catch (const servesim::RunInterrupted&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
  m.def("run", &run, py::arg("scenario_path"), py::arg("sets"), py::arg("seed"), py::arg("replicates"),
        py::arg("out_dir"));
  m.def("sweep", &sweep, py::arg("scenario_path"), py::arg("axes"), py::arg("zip"), py::arg("jobs"),
        py::arg("sets"), py::arg("seed"), py::arg("replicates"), py::arg("shard_index") = 0,
        py::arg("shard_count") = 1, py::arg("format") = "csv", py::arg("on_progress") = py::none());
  m.def("merge", &merge, py::arg("shard_paths"));
  m.def("capacity", &capacity, py::arg("scenario_path"), py::arg("sets"), py::arg("class_name"), py::arg("slo"),
        py::arg("tolerance"), py::arg("max_rejected"), py::arg("seed"), py::arg("replicates"),
        py::arg("objective") = "load");
  m.def("search", &search, py::arg("scenario_path"), py::arg("space_path"), py::arg("sets"),
        py::arg("class_name"), py::arg("rate"), py::arg("slo"), py::arg("prices"), py::arg("jobs"),
        py::arg("seed"), py::arg("replicates"), py::arg("objective") = "cost", py::arg("on_progress") = py::none());
  m.def("step", &step, py::arg("model"), py::arg("hardware"), py::arg("tp"), py::arg("pp"), py::arg("ep"),
        py::arg("micro_batches"), py::arg("weights"), py::arg("kv"), py::arg("activations"), py::arg("prefills"),
        py::arg("decodes"), py::arg("cost_model"), py::arg("engine"), py::arg("engine_version"),
        py::arg("cuda_graphs"));
  // The request's fields by name, as `servesim replay`'s options fill them.
  m.def(
      "replay",
      [](std::string bench, std::string scenario, std::string format, std::vector<std::string> sets,
         std::string tolerance, bool force) {
        return replay({std::move(bench), std::move(scenario), std::move(format), std::move(sets),
                       std::move(tolerance), force});
      },
      py::arg("bench_path"), py::arg("scenario_path"), py::arg("format"), py::arg("sets"), py::arg("tolerance"),
      py::arg("force"));
  m.def(
      "calibrate",
      [](std::string bench, std::string scenario, std::string format, std::vector<std::string> sets,
         std::optional<std::string> fit, std::string fit_stages, int max_replays, bool force, std::string output) {
        servesim::BenchmarkCalibrationRequest request;
        request.bench_path = std::move(bench);
        request.scenario_path = std::move(scenario);
        request.format = std::move(format);
        request.sets = std::move(sets);
        request.fit_given = fit.has_value();  // the profile records --fit only when it was asked for
        if (fit) request.fit_list = *fit;
        request.fit_stages = std::move(fit_stages);
        request.max_evaluations = max_replays;
        request.force = force;
        return calibrate(request, output);
      },
      py::arg("bench_path"), py::arg("scenario_path"), py::arg("format"), py::arg("sets"), py::arg("fit"),
      py::arg("fit_stages"), py::arg("max_replays"), py::arg("force"), py::arg("output"));
  m.def(
      "calibrate_to_measurements",
      [](std::string hardware, std::string model, std::string measurements, std::int64_t fit_max_prefill,
         std::int64_t fit_max_context, const std::string& output) {
        return fit_hardware_to_measurements(
            {std::move(hardware), std::move(model), std::move(measurements), fit_max_prefill, fit_max_context}, output);
      },
      py::arg("hardware"), py::arg("model"), py::arg("measurements"), py::arg("fit_max_prefill"),
      py::arg("fit_max_context"), py::arg("output"));
  m.def(
      "calibrate_to_kernels",
      [](std::string kernel_set, std::string hardware, const std::string& output) {
        return fit_hardware_to_kernels({std::move(kernel_set), std::move(hardware)}, output);
      },
      py::arg("kernel_set"), py::arg("hardware"), py::arg("output"));
  m.def("explain", &explain, py::arg("scenario_path"), py::arg("sets"), py::arg("seed"), py::arg("jobs"));
  m.def("compare", &compare, py::arg("baseline"), py::arg("candidate"), py::arg("tolerance"),
        py::arg("per_field"));
  // `context`: run_context.json's text for a folder without one (`servesim report --scenario`).
  m.def(
      "html_report",
      [](const std::string& dir, std::optional<std::string> context) {
        if (!context) return servesim::html_report(dir);
        const nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(*context);
        return servesim::html_report(dir, &parsed);
      },
      py::arg("dir"), py::arg("context") = std::nullopt);
  // The CLI's reading of "5%" (sim/scenario/percent.h), so that both refuse the same texts.
  m.def("parse_percent", &servesim::parse_percent_or_throw, py::arg("text"), py::arg("option"));
  m.attr("__version__") = SERVESIM_VERSION;
}
