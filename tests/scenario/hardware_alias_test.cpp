// Short hardware names resolve to the bundled profiles (sim/scenario/resource_paths.cpp), and an
// unknown name lists the profiles there are.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/subcommands.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/resource_paths.h"

namespace hardware_alias_test {

using namespace servesim;

namespace {

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome step(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run_subcommand("step", args, out, err);
  return {code, out.str(), err.str()};
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("hardware aliases: h100 and a100 and h200 resolve to their bundled profiles", "[scenario][hardware]") {
  CHECK(ends_with(resolve_resource("configs/hardware", "h100").value_or(""), "/h100-sxm.yaml"));
  CHECK(ends_with(resolve_resource("configs/hardware", "H100").value_or(""), "/h100-sxm.yaml"));
  CHECK(ends_with(resolve_resource("configs/hardware", "a100").value_or(""), "/a100-80g-sxm.yaml"));
  CHECK(ends_with(resolve_resource("configs/hardware", "h200").value_or(""), "/h200.yaml"));
  // Aliases are hardware names only.
  CHECK_FALSE(resolve_resource("models", "h100").has_value());
  CHECK(load_hardware("h100").name == "h100-sxm");
  CHECK(load_hardware("a100").name == "a100-80g-sxm");

  const Outcome r = step({"--model", "llama-3-8b", "--hardware", "h100", "--decode", "8:1024"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("llama-3-8b on h100-sxm (tp=1") != std::string::npos);
  // The same step as the profile's full name.
  const Outcome full = step({"--model", "llama-3-8b", "--hardware", "h100-sxm", "--decode", "8:1024"});
  CHECK(full.out == r.out);
}

TEST_CASE("hardware aliases: an unknown name lists the bundled profiles and exits 2", "[scenario][hardware]") {
  const Outcome r = step({"--model", "llama-3-8b", "--hardware", "tpu-v5e", "--decode", "8:1024"});
  CHECK(r.code == 2);
  CHECK(r.err.find("tpu-v5e") != std::string::npos);
  for (const char* name : {"a100-80g-pcie", "a100-80g-sxm", "h100-sxm", "h200", "l40s"}) {
    INFO(name);
    CHECK(r.err.find(name) != std::string::npos);
  }
}

TEST_CASE("hardware aliases: the short names are offered and listed with their profiles", "[scenario][hardware]") {
  const Outcome near = step({"--model", "llama-3-8b", "--hardware", "h10", "--decode", "8:1024"});
  CHECK(near.code == 2);
  // The same words as a scenario's `hardware: h10` (scenario_errors_test.cpp).
  CHECK(near.err.find("unknown hardware 'h10': neither a file nor a bundled name; did you mean 'h100'?") !=
        std::string::npos);
  const Outcome far = step({"--model", "llama-3-8b", "--hardware", "tpu-v5e", "--decode", "8:1024"});
  CHECK(far.err.find("(also h100 = h100-sxm, a100 = a100-80g-sxm)") != std::string::npos);
}

}  // namespace hardware_alias_test
