#pragma once
// The options `capacity` and `search` share, written once: what makes a run feasible (the
// SLO, the class it is judged on, the share of requests that may be rejected), whether a
// plainly overloaded run is cut short, the scenario overrides and the seed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace servesim::cli {

struct FeasibilityOptions {
  std::string slo_text;
  std::string class_name;
  std::vector<std::string> sets;
  std::string max_rejected = "0%";
  // After read(): the parsed values.
  double reject_share = 0;
  bool early_stop = true;
  std::optional<std::uint64_t> seed;

  // The options, for a study whose runs are each a `run_noun` ("trial", "candidate");
  // `class_help` says what --class selects in this study.
  boost::program_options::options_description describe(const std::string& run_noun, const std::string& class_help);
  // Parses what describe() bound. Throws ConfigError naming the option.
  void read(const boost::program_options::variables_map& vm);
  // read(), then the parsed values into a study's request (CapacityRequest, SearchRequest),
  // whose fields of these options have the same names.
  template <typename Request>
  void read_into(const boost::program_options::variables_map& vm, Request& request) {
    read(vm);
    request.slo_text = slo_text;
    request.class_name = class_name;
    request.sets = sets;
    request.reject_share = reject_share;
    request.early_stop = early_stop;
    request.seed = seed;
  }
};

}  // namespace servesim::cli
