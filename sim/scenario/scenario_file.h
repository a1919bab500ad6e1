#pragma once
// A scenario file read and validated, as the public header (include/servesim/servesim.h)
// hands it out: what a run or a study starts from, without the engine and cluster types a
// Scenario is made of, so that a program built on the public header does not see them and
// they can change without breaking it. The library's own functions take the Scenario inside
// (`scenario()`, or the implicit conversion), whose definition only the library includes.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace servesim {

struct Scenario;

class ScenarioFile {
 public:
  // Reads `path` with `overrides` ("dotted.key=value", as --set) applied, as `servesim run`
  // does. Throws ConfigError naming the file, line and key of what is wrong.
  static ScenarioFile load(const std::string& path, const std::vector<std::string>& overrides = {});

  ScenarioFile(const ScenarioFile& other);
  ScenarioFile& operator=(const ScenarioFile& other);
  ScenarioFile(ScenarioFile&&) noexcept;
  ScenarioFile& operator=(ScenarioFile&&) noexcept;
  ~ScenarioFile();

  const std::string& path() const { return path_; }
  const std::vector<std::string>& overrides() const { return overrides_; }
  const std::string& name() const;
  std::uint64_t seed() const;
  void set_seed(std::uint64_t seed);
  std::vector<std::string> class_names() const;  // the workload's classes, in file order
  std::vector<std::string> pool_names() const;   // the cluster's pools, in file order

  // The validated scenario, for the library's functions (run_scenario, check_servability,
  // long_run_warning, run_to_files); a caller needs no more than to pass it on.
  const Scenario& scenario() const { return *scenario_; }
  operator const Scenario&() const { return *scenario_; }  // NOLINT: a handle passes as what it holds

 private:
  ScenarioFile(std::string path, std::vector<std::string> overrides, std::unique_ptr<Scenario> scenario);

  std::string path_;
  std::vector<std::string> overrides_;
  std::unique_ptr<Scenario> scenario_;
};

}  // namespace servesim
