#include "sim/scenario/vllm_goodput.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/scenario_loader.h"

namespace servesim {

namespace {

constexpr const char* kUsage =
    "expected KEY:VALUE pairs as vLLM's --goodput takes them, KEY one of ttft, tpot, e2el and VALUE in "
    "milliseconds (e.g. --goodput ttft:200 tpot:50); for ITL use a class's slo: {itl: {every: 50ms}}";

[[noreturn]] void goodput_fail(const std::string& message) { throw ConfigError("", 0, "--goodput", message); }

// vLLM's bound: a plain number of milliseconds >= 0; a value with a unit is read as a duration.
Tick bound_ns(const std::string& pair, const std::string& value) {
  if (value.empty()) goodput_fail("'" + pair + "' has no value: " + kUsage);
  char* end = nullptr;
  const double ms = std::strtod(value.c_str(), &end);
  if (end == value.c_str() + value.size()) {
    if (!std::isfinite(ms) || ms < 0 || ms > 9e15) goodput_fail("'" + pair + "': the bound must be a number of ms >= 0");
    return static_cast<Tick>(std::llround(ms * 1e6));
  }
  return parse_duration(value, "", 0, "--goodput");
}

}  // namespace

SloSpec parse_vllm_goodput(const std::vector<std::string>& tokens) {
  SloSpec slo;
  bool any = false;
  for (const std::string& token : tokens) {
    std::istringstream words(token);
    std::string pair;
    while (words >> pair) {
      const auto colon = pair.find(':');
      if (colon == std::string::npos) goodput_fail("'" + pair + "' is not KEY:VALUE: " + kUsage);
      const std::string key = pair.substr(0, colon);
      const Tick ns = bound_ns(pair, pair.substr(colon + 1));
      if (key == "ttft") {
        slo.ttft_ns = ns;
      } else if (key == "tpot") {
        slo.tpot_ns = ns;
      } else if (key == "e2el") {
        slo.e2el_ns = ns;
      } else {
        const auto near = closest_match(key, {"ttft", "tpot", "e2el"});
        goodput_fail("unknown metric '" + key + "' in '" + pair + "'" + (near ? "; did you mean '" + *near + "'?" : "") +
             ": " + kUsage);
      }
      any = true;
    }
  }
  if (!any) goodput_fail(std::string("is empty: ") + kUsage);
  return slo;
}

}  // namespace servesim
