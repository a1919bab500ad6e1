#include "sim/scenario/scenario_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "sim/core/errors.h"
#include "sim/scenario/class_models.h"
#include "sim/scenario/cluster_parse.h"
#include "sim/scenario/data_paths.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/lora_parse.h"
#include "sim/scenario/set_overrides.h"
#include "sim/scenario/workload_parse.h"
#include "sim/scenario/yaml_helpers.h"
#include "sim/scenario/bench_output_formats.h"

namespace servesim {

namespace {

const std::vector<std::string> kTopKeys = {"name",    "seed",     "stop",    "warmup",
                                           "workload", "cluster", "outputs"};

YAML::Node read_yaml(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw ConfigError(path, 0, "", "scenario file not found");
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(path, 0, "", "is a folder; expected a scenario YAML file");
  }
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError(path, 0, "", "cannot read the scenario file");
  } catch (const YAML::Exception& e) {
    // yaml-cpp counts lines and columns from 0.
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
    const int column = e.mark.is_null() ? 0 : e.mark.column + 1;
    throw ConfigError(path, line, "", "YAML syntax error: " + e.msg, column);
  }
}

StopSpec parse_stop(const Field& f) {
  f.expect_map({"requests", "time"});
  StopSpec stop;
  if (auto requests = f.get("requests")) stop.requests = requests->int_at_least(1);
  if (auto time = f.get("time")) {
    stop.time_ns = time->as_duration_ns();
    if (*stop.time_ns <= 0) time->fail("the stop time must be > 0, got " + time->node().Scalar());
  }
  return stop;
}

// `warmup: {requests: N, time: D}`: requests the summaries leave out. A warm-up that
// would cover every request the stop admits leaves nothing to report, so it is refused.
WarmupSpec parse_warmup(const Field& f, const StopSpec& stop) {
  f.expect_map({"requests", "time"});
  WarmupSpec warmup;
  if (f.keys().empty()) f.fail("give 'requests' (the first N arrivals) and/or 'time' (arrivals before it)");
  if (auto requests = f.get("requests")) {
    warmup.requests = requests->int_at_least(1);
    if (stop.requests && *warmup.requests >= *stop.requests) {
      requests->fail("the warm-up covers every request stop.requests admits (" + std::to_string(*stop.requests) +
                     "); it must be fewer");
    }
  }
  if (auto time = f.get("time")) {
    warmup.time_ns = time->as_duration_ns();
    if (*warmup.time_ns <= 0) time->fail("the warm-up time must be > 0, got " + time->node().Scalar());
    if (stop.time_ns && *warmup.time_ns >= *stop.time_ns) {
      time->fail("the warm-up lasts as long as stop.time or longer; it must end before the run does");
    }
  }
  return warmup;
}

// `bench_format: vllm` or `bench_format: [vllm, guidellm]`: the benchmark writers' names.
std::vector<std::string> parse_bench_formats(const Field& f) {
  std::vector<std::string> names;
  for (const Field& item : f.is_list() ? f.items() : std::vector<Field>{f}) {
    const std::string name = item.as_string();
    const std::vector<std::string>& valid = bench_output_format_names();
    if (std::find(valid.begin(), valid.end(), name) == valid.end())
      item.fail(unknown_choice_message("benchmark format", "formats", name, valid));
    if (std::find(names.begin(), names.end(), name) != names.end()) item.fail("'" + name + "' is listed twice");
    names.push_back(name);
  }
  return names;
}

OutputsSpec parse_outputs(const Field& f) {
  f.expect_map({"requests_csv", "chrome_trace", "timeseries", "timeseries_interval", "bench_format", "html"});
  OutputsSpec out;
  if (auto v = f.get("requests_csv")) out.requests_csv = v->as_bool();
  if (auto v = f.get("chrome_trace")) out.chrome_trace = v->as_bool();
  if (auto v = f.get("timeseries")) out.timeseries = v->as_bool();
  if (auto v = f.get("timeseries_interval")) {
    out.timeseries_interval_ns = v->as_duration_ns();
    if (out.timeseries_interval_ns <= 0) v->fail("the interval must be > 0, got " + v->node().Scalar());
  }
  if (auto v = f.get("bench_format")) out.bench_formats = parse_bench_formats(*v);
  if (auto v = f.get("html")) out.html = v->as_bool();
  return out;
}

// The name becomes the default results folder (results/NAME), so it must be one plain
// path component.
std::string parse_name(const Field& f) {
  const std::string name = f.as_string();
  if (name.empty()) f.fail("the name is empty");
  if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos || name == "." ||
      name == "..") {
    f.fail("the name becomes a folder name, so it cannot contain '/' or '\\' or be '.' or '..'");
  }
  return name;
}

Scenario parse_scenario(const Field& root, const std::string& path, bool workload_replaced) {
  if (root.is_null()) {
    root.fail("the scenario is empty; it needs at least 'workload' and 'cluster'");
  }
  root.expect_map(kTopKeys);
  Scenario s;
  s.source_file = path;
  s.name = std::filesystem::path(path).stem().string();
  if (auto v = root.get("name")) s.name = parse_name(*v);
  if (auto v = root.get("seed")) s.seed = v->as_uint64();
  if (auto v = root.get("stop")) s.stop = parse_stop(*v);
  if (auto v = root.get("warmup")) s.stop.warmup = parse_warmup(*v, s.stop);
  s.workload = parse_workload(root.require("workload"));
  s.cluster = parse_cluster(root.require("cluster"), s.workload);
  check_class_models(root.require("workload"), s.workload, s.cluster);
  check_lora_classes(root.require("workload"), s.workload, s.cluster);
  if (auto v = root.get("outputs")) s.outputs = parse_outputs(*v);
  // A synthetic or closed-loop class never runs dry, so without a stop the run would never end;
  // arrival stages end with the last stage. A replay's requests come from its benchmark file.
  if (!workload_replaced && !s.stop.requests && !s.stop.time_ns) {
    for (std::size_t i = 0; i < s.workload.size(); ++i) {
      if (s.workload[i].trace || (s.workload[i].arrival && !s.workload[i].arrival->stages.empty())) continue;
      const Field stop_or_root = root.get("stop") ? *root.get("stop") : root;
      stop_or_root.fail("class '" + s.workload[i].name +
                        "' generates requests without end; set stop.requests or stop.time "
                        "(or arrival stages, which end)");
    }
  }
  return s;
}

}  // namespace

namespace {

Scenario load(const std::string& path, const std::vector<std::string>& overrides, bool workload_replaced) {
  YAML::Node root = read_yaml(path);
  LoadContext ctx{path, {}};
  for (const std::string& text : overrides) {
    ctx.overridden.push_back(apply_override(root, parse_override(text)));
  }
  try {
    return parse_scenario(root_field(ctx, root), path, workload_replaced);
  } catch (const YAML::Exception& e) {
    // The parsers read the tree without conversions that throw; this is a safety net so a
    // yaml-cpp surprise still reaches the user as bad input, never as a crash.
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
    throw ConfigError(path, line, "", std::string("cannot read the scenario: ") + e.msg);
  }
}

}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  return load(path, overrides, false);
}

Scenario load_deployment(const std::string& path, const std::vector<std::string>& overrides) {
  return load(path, overrides, true);
}

std::string disaggregation_override(const std::string& path, const std::vector<std::string>& overrides,
                                    std::string& why_not) {
  YAML::Node root = read_yaml(path);
  for (const std::string& text : overrides) apply_override(root, parse_override(text));
  const YAML::Node pools = root["cluster"]["pools"];
  if (!pools.IsSequence() || pools.size() != 1) {
    why_not = "the scenario has several pools; split one yourself with role: prefill / decode";
    return "";
  }
  const YAML::Node pool = pools[0];
  if (pool["role"] && pool["role"].as<std::string>("unified") != "unified") {
    why_not = "the pool is already disaggregated";
    return "";
  }
  const long replicas = pool["replicas"] ? pool["replicas"].as<long>(0) : 1;
  if (replicas < 2) {
    why_not = "needs at least 2 replicas to split (this pool has " + std::to_string(replicas) + ")";
    return "";
  }
  const std::string name = pool["name"] ? pool["name"].as<std::string>("main") : "main";
  YAML::Node prefill = YAML::Clone(pool);
  pin_pool_files(prefill, path);  // the copies name the files the scenario's pool does
  prefill["name"] = name + "-prefill";
  prefill["role"] = "prefill";
  prefill["decode_pool"] = name + "-decode";
  prefill["replicas"] = (replicas + 1) / 2;
  YAML::Node decode = YAML::Clone(pool);
  pin_pool_files(decode, path);
  decode.remove("classes");  // a decode pool is fed by its prefill pool, not by classes
  decode["name"] = name + "-decode";
  decode["role"] = "decode";
  decode["replicas"] = replicas / 2;
  YAML::Node split(YAML::NodeType::Sequence);
  split.push_back(prefill);
  split.push_back(decode);
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << split;
  return std::string("cluster.pools=") + out.c_str();
}

}  // namespace servesim
