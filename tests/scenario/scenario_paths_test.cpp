// Every path a scenario names resolves relative to the scenario file's folder, then
// bundled, never from the working directory: the same scenario reads the same files from
// any folder (sim/scenario/data_paths.h).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "sim/core/errors.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/resource_paths.h"
#include "sim/scenario/scenario_loader.h"
#include "scenario/scenario_fixture.h"

namespace scenario_paths_test {

using namespace servesim;
using servesim::testing::ScenarioDir;
using servesim::testing::kLlama70bShape;
using servesim::testing::kLlama8bShape;

namespace {

namespace fs = std::filesystem;


std::string scenario_with(const std::string& pool_keys, const std::string& workload = "") {
  return (workload.empty() ? std::string("workload:\n  - class: chat\n    arrival: {process: poisson, rate: 4}\n"
                                         "    input: {fixed: 100}\n    output: {fixed: 10}\n")
                           : workload) +
         "cluster:\n  pools:\n    - " + pool_keys + "\nstop: {requests: 100}\n";
}

// Runs the test body from another folder and comes back, whatever happens.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const fs::path& dir) : previous_(fs::current_path()) { fs::current_path(dir); }
  ~WorkingDirectory() { fs::current_path(previous_); }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  fs::path previous_;
};

std::string error_of(const std::string& path, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario(path, sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("scenario paths: the model beside the scenario wins over a file of that name in the working directory",
          "[scenario][paths]") {
  ScenarioDir scenario_dir;
  ScenarioDir elsewhere;
  scenario_dir.write("x-config.json", kLlama70bShape);
  elsewhere.write("x-config.json", kLlama8bShape);
  const std::string path = scenario_dir.write("chat70b.yaml", scenario_with("{model: x-config.json, hardware: h100-sxm, tp: 4}"));
  const WorkingDirectory cwd(fs::path(elsewhere.path("")));
  // The scenario named absolutely and relatively (`servesim validate ../chat70b.yaml`).
  for (const std::string& named : {path, fs::relative(path, fs::current_path()).string()}) {
    INFO(named);
    const Scenario s = load_scenario(named);
    const ModelSpec& m = s.cluster.pools[0].model;
    CHECK(m.num_layers == 80);
    CHECK(m.hidden_size == 8192);
    CHECK(m.parameter_count() == load_model("llama-3-70b").parameter_count());
    CHECK(m.name == "x-config");  // the file's name, not its folder ("..") or the path as typed
  }
}

TEST_CASE("scenario paths: a data file beside the scenario is read from any working directory", "[scenario][paths]") {
  ScenarioDir scenario_dir;
  ScenarioDir elsewhere;
  elsewhere.write("conv.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,9,9\n");
  const std::string path = scenario_dir.write(
      "s.yaml", scenario_with("{model: tiny-model.yaml, hardware: tiny-gpu.yaml}",
                              "workload:\n  - class: chat\n    trace: {format: azure, path: conv.csv}\n"));
  const WorkingDirectory cwd(fs::path(elsewhere.path("")));
  const Scenario s = load_scenario(path);
  REQUIRE(s.workload[0].trace);
  CHECK(fs::equivalent(s.workload[0].trace->path, scenario_dir.path("conv.csv")));
}

TEST_CASE("scenario paths: a file in the working directory is not looked at for a value in the scenario",
          "[scenario][paths]") {
  ScenarioDir scenario_dir;
  ScenarioDir elsewhere;
  elsewhere.write("only-here.json", kLlama8bShape);
  const std::string path = scenario_dir.write("s.yaml", scenario_with("{model: only-here.json, hardware: tiny-gpu.yaml}"));
  const WorkingDirectory cwd(fs::path(elsewhere.path("")));
  const std::string error = error_of(path);
  CHECK(has(error, "s.yaml:8:"));
  CHECK(has(error, "unknown model 'only-here.json'"));
  CHECK(has(error, "looked beside the scenario (" + fs::path(scenario_dir.path("")).lexically_normal().parent_path().string() + ")"));
}

TEST_CASE("scenario paths: a name both beside the scenario and bundled is an error naming both", "[scenario][paths]") {
  ScenarioDir dir;
  dir.write("llama-3-8b.yaml", servesim::testing::kTinyModelYaml);
  const std::string path = dir.write("s.yaml", scenario_with("{model: llama-3-8b.yaml, hardware: tiny-gpu.yaml}"));
  const std::string error = error_of(path);
  CHECK(has(error, "s.yaml:8:"));
  CHECK(has(error, "cluster.pools.0.model"));
  CHECK(has(error, "'llama-3-8b.yaml' names 2 files: " + dir.path("llama-3-8b.yaml") + " (beside the scenario) and "));
  CHECK(has(error, (fs::path(resource_root()) / "models" / "llama-3-8b.yaml").string() + " (bundled)"));
  CHECK(has(error, "./llama-3-8b.yaml for the one beside the scenario"));

  SECTION("./NAME picks the one beside the scenario; the bare name the bundled one") {
    const Scenario beside = load_scenario(path, {"cluster.pools.0.model=./llama-3-8b.yaml"});
    CHECK(beside.cluster.pools[0].model.name == "test-gqa");
    const Scenario bundled = load_scenario(path, {"cluster.pools.0.model=llama-3-8b"});
    CHECK(bundled.cluster.pools[0].model.name == "llama-3-8b");
  }
}

TEST_CASE("scenario paths: a data path both beside the scenario and bundled is an error naming both",
          "[scenario][paths]") {
  ScenarioDir dir;
  fs::create_directories(fs::path(dir.path("data")) / "traces");
  dir.write("data/traces/azure_llm_2023_conv.csv", servesim::testing::kAzureTraceCsv);
  const std::string path = dir.write(
      "s.yaml", scenario_with("{model: tiny-model.yaml, hardware: tiny-gpu.yaml}",
                              "workload:\n  - class: chat\n    trace: {format: azure, path: data/traces/azure_llm_2023_conv.csv}\n"));
  const std::string error = error_of(path);
  CHECK(has(error, "s.yaml:3:"));
  CHECK(has(error, "workload.0.trace.path"));
  CHECK(has(error, "names 2 files"));
  CHECK(has(error, "(beside the scenario)"));
  CHECK(has(error, (fs::path(resource_root()) / "data/traces/azure_llm_2023_conv.csv").string() + " (bundled)"));
}

TEST_CASE("scenario paths: a --set path is also looked up from the working directory", "[scenario][paths]") {
  ScenarioDir scenario_dir;
  ScenarioDir elsewhere;
  elsewhere.write("mine.json", kLlama8bShape);
  const std::string path = scenario_dir.write("s.yaml", scenario_with("{model: tiny-model.yaml, hardware: tiny-gpu.yaml}"));
  fs::remove(elsewhere.path("tiny-model.yaml"));  // ScenarioDir writes one in every folder
  const WorkingDirectory cwd(fs::path(elsewhere.path("")));
  const Scenario s = load_scenario(path, {"cluster.pools.0.model=mine.json"});
  CHECK(s.cluster.pools[0].model.num_layers == 32);
  CHECK(s.cluster.pools[0].model.hidden_size == 4096);

  SECTION("the scenario's folder still counts for a --set value (explain's levers copy the file's values)") {
    CHECK(load_scenario(path, {"cluster.pools.0.model=tiny-model.yaml"}).cluster.pools[0].model.name == "test-gqa");
  }
  SECTION("a --set value that names a file in each folder is an error naming both") {
    elsewhere.write("tiny-model.yaml", servesim::testing::kTinyModelYaml);
    const std::string error = error_of(path, {"cluster.pools.0.model=tiny-model.yaml"});
    CHECK(has(error, "--set"));
    CHECK(has(error, "names 2 files"));
    CHECK(has(error, "(in the working directory)"));
    CHECK(has(error, "(beside the scenario)"));
  }
}

TEST_CASE("scenario paths: explain's split of a pool into prefill and decode names the files the pool does",
          "[scenario][paths]") {
  ScenarioDir scenario_dir;
  ScenarioDir elsewhere;
  scenario_dir.write("x-config.json", kLlama70bShape);
  elsewhere.write("x-config.json", kLlama8bShape);
  const std::string path =
      scenario_dir.write("s.yaml", scenario_with("{model: x-config.json, hardware: h100-sxm, tp: 4, replicas: 2}"));
  const WorkingDirectory cwd(fs::path(elsewhere.path("")));
  std::string why_not;
  const std::string split = disaggregation_override(path, {}, why_not);
  REQUIRE(why_not.empty());
  // The split is a --set value, which is also looked up from the working directory: the
  // copies name the scenario's file by its absolute path, so the other x-config.json is no rival.
  const Scenario s = load_scenario(path, {split});
  REQUIRE(s.cluster.pools.size() == 2);
  for (const auto& pool : s.cluster.pools) CHECK(pool.model.num_layers == 80);
}

TEST_CASE("scenario paths: a bundled engine preset named by its path is that preset", "[scenario][paths]") {
  ScenarioDir dir;
  const std::string sglang = (fs::path(resource_root()) / "configs" / "engines" / "sglang.yaml").string();
  const std::string path = dir.write("s.yaml", scenario_with("{model: llama-3-8b, hardware: h100-sxm, engine: {preset: " + sglang + "}}"));
  const Scenario by_path = load_scenario(path);
  const Scenario by_name = load_scenario(path, {"cluster.pools.0.engine.preset=sglang"});
  CHECK(by_path.cluster.pools[0].engine.preset == "sglang");
  // The name picks SGLang's kernel tables (kernel_engine_family), whichever way it was written.
  for (const Scenario* s : {&by_path, &by_name}) {
    const auto& tables = s->cluster.pools[0].cost_model.kernel_tables;
    REQUIRE(tables);
    CHECK(tables->set_name == "h100_sxm/sglang-0.5.14");
  }
}

TEST_CASE("scenario paths: a negative seed is refused", "[scenario][paths][seed]") {
  ScenarioDir dir;
  const std::string path = dir.write("s.yaml", "seed: -1\n" + scenario_with("{model: tiny-model.yaml, hardware: tiny-gpu.yaml}"));
  CHECK(has(error_of(path), "s.yaml:1:"));
  CHECK(has(error_of(path), "must be >= 0, got -1"));
  const std::string ok = dir.write("ok.yaml", scenario_with("{model: tiny-model.yaml, hardware: tiny-gpu.yaml}"));
  CHECK(has(error_of(ok, {"seed=-3"}), "must be >= 0, got -3"));
  CHECK(load_scenario(ok, {"seed=18446744073709551615"}).seed == 18446744073709551615ULL);
}

TEST_CASE("scenario paths: a Hugging Face config's name does not depend on how its path is typed",
          "[scenario][paths][model]") {
  ScenarioDir dir;
  fs::create_directories(fs::path(dir.path("Meta-Llama-3-8B")));
  dir.write("Meta-Llama-3-8B/config.json", kLlama8bShape);
  dir.write("x-config.json", kLlama8bShape);
  const WorkingDirectory cwd(fs::path(dir.path("Meta-Llama-3-8B")));
  // A config.json is named by the folder holding it, also when typed without a folder.
  CHECK(load_model_file("config.json").name == "Meta-Llama-3-8B");
  CHECK(load_model_file("./config.json").name == "Meta-Llama-3-8B");
  // Any other file by its own name, not by a folder such as "..".
  CHECK(load_model_file("../x-config.json").name == "x-config");
  CHECK(load_model_file(dir.path("x-config.json")).name == "x-config");
}

}  // namespace scenario_paths_test
