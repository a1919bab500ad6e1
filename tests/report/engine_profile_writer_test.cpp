// The engine profile `calibrate --from-benchmark` writes: fitted knobs as YAML keys, and a
// knob the benchmark could not identify left out, with a comment saying why, so the preset's
// value stands instead of the start value dressed as a fit.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "sim/report/engine_profile_writer.h"

namespace engine_profile_writer_test {

using namespace servesim;

TEST_CASE("engine profile: a knob that was not identifiable is left out with the reason", "[report][calibrate]") {
  OverheadCalibration fit;
  fit.knobs = {"per_step", "per_request"};
  fit.start.per_step_ns = 0;
  fit.fitted.per_step_ns = 0;
  fit.fitted.per_request_ns = 4'250'000;
  fit.unidentified.push_back({"per_step", "async scheduling hides it", "engine.async_scheduling: false"});
  EngineProfileProvenance provenance{"servesim calibrate --from-benchmark b.json --scenario s.yaml", "vllm", "b.json"};
  std::ostringstream out;
  write_engine_profile(out, fit, provenance);
  const std::string yaml = out.str();
  INFO(yaml);
  CHECK(yaml.find("\n  per_step:") == std::string::npos);
  CHECK(yaml.find("# per_step not written: not identifiable from this benchmark (async scheduling hides it)\n"
                  "#   it shows under engine.async_scheduling: false\n") != std::string::npos);
  CHECK(yaml.find("preset: vllm\n") != std::string::npos);
  CHECK(yaml.find("overheads:\n  per_request: 4250.0us\n  per_token: 0.0us\n") != std::string::npos);

  // Nothing identifiable: no overheads block at all.
  fit.unidentified = {{"per_step", "a", ""}, {"per_request", "b", ""}, {"per_token", "c", ""}};
  std::ostringstream none;
  write_engine_profile(none, fit, provenance);
  CHECK(none.str().find("overheads:") == std::string::npos);
}

}  // namespace engine_profile_writer_test
