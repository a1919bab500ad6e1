#include "sim/scenario/scenario_file.h"

#include <utility>

#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_loader.h"

namespace servesim {

ScenarioFile ScenarioFile::load(const std::string& path, const std::vector<std::string>& overrides) {
  return ScenarioFile(path, overrides, std::make_unique<Scenario>(load_scenario(path, overrides)));
}

ScenarioFile::ScenarioFile(std::string path, std::vector<std::string> overrides, std::unique_ptr<Scenario> scenario)
    : path_(std::move(path)), overrides_(std::move(overrides)), scenario_(std::move(scenario)) {}

ScenarioFile::ScenarioFile(const ScenarioFile& other)
    : path_(other.path_), overrides_(other.overrides_), scenario_(std::make_unique<Scenario>(*other.scenario_)) {}

ScenarioFile& ScenarioFile::operator=(const ScenarioFile& other) {
  if (this != &other) *this = ScenarioFile(other);
  return *this;
}

ScenarioFile::ScenarioFile(ScenarioFile&&) noexcept = default;
ScenarioFile& ScenarioFile::operator=(ScenarioFile&&) noexcept = default;
ScenarioFile::~ScenarioFile() = default;

const std::string& ScenarioFile::name() const { return scenario_->name; }

std::uint64_t ScenarioFile::seed() const { return scenario_->seed; }

void ScenarioFile::set_seed(std::uint64_t seed) { scenario_->seed = seed; }

std::vector<std::string> ScenarioFile::class_names() const {
  std::vector<std::string> names;
  for (const ClassSpec& c : scenario_->workload) names.push_back(c.name);
  return names;
}

std::vector<std::string> ScenarioFile::pool_names() const {
  std::vector<std::string> names;
  for (const PoolConfig& p : scenario_->cluster.pools) names.push_back(p.name);
  return names;
}

}  // namespace servesim
