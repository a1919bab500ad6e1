#include "sim/cli/options.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "sim/core/errors.h"

namespace po = boost::program_options;

namespace servesim::cli {

bool asks_for_help(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

bool asks_for_formats(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--format" && (i + 1 == args.size() || args[i + 1].rfind('-', 0) == 0)) return true;
  }
  return false;
}

namespace {

// Program_options reads "-1" into an unsigned option by wrapping (--seed -1 would become
// 18446744073709551615), so a negative value is refused from the text as typed.
bool unsigned_option(const po::option_description& d) {
  const po::value_semantic* v = d.semantic().get();
  return dynamic_cast<const po::typed_value<std::uint64_t>*>(v) != nullptr ||
         dynamic_cast<const po::typed_value<unsigned>*>(v) != nullptr ||
         dynamic_cast<const po::typed_value<unsigned long>*>(v) != nullptr ||
         dynamic_cast<const po::typed_value<unsigned long long>*>(v) != nullptr;
}

void refuse_negative_unsigned(const po::parsed_options& parsed, const po::options_description& all) {
  for (const po::option& o : parsed.options) {
    const po::option_description* d = all.find_nothrow(o.string_key, false);
    if (d == nullptr || !unsigned_option(*d)) continue;
    for (const std::string& token : o.value) {
      const auto first = token.find_first_not_of(" \t");
      if (first != std::string::npos && token[first] == '-') {
        throw po::error("--" + o.string_key + " must be a whole number >= 0, got '" + token + "'");
      }
    }
  }
}

}  // namespace

bool parse_options(const std::vector<std::string>& args, const po::options_description& visible,
                   const po::options_description& hidden, const po::positional_options_description& positional,
                   po::variables_map& vm, std::ostream& err) {
  po::options_description all;
  all.add(visible).add(hidden);
  // `calibrate --from-benchmark --help` asks for the help: neither an option's missing or
  // bad value nor Program_options taking "--help" as that option's value may hide it.
  if (asks_for_help(args) && all.find_nothrow("help", false) != nullptr) {
    po::store(po::command_line_parser(std::vector<std::string>{"--help"}).options(all).run(), vm);
    return true;
  }
  try {
    const po::parsed_options parsed = po::command_line_parser(args).options(all).positional(positional).run();
    refuse_negative_unsigned(parsed, all);
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    err << "usage error: " << e.what() << "\n\n" << visible;
    return false;
  }
  return true;
}

Operands::Operands(const char* name, std::string& one) {
  hidden.add_options()(name, po::value(&one));
  positional.add(name, 1);
}

Operands::Operands(const char* name, std::vector<std::string>& many) {
  hidden.add_options()(name, po::value(&many)->composing());
  positional.add(name, -1);
}

std::optional<int> parse_command(const std::vector<std::string>& args, const po::options_description& opts,
                                 const std::string& about, const Operands& operands, po::variables_map& vm,
                                 std::ostream& out, std::ostream& err) {
  if (!parse_options(args, opts, operands.hidden, operands.positional, vm, err)) return 2;
  if (vm.count("help")) {
    out << about << "\n" << opts;
    return 0;
  }
  return std::nullopt;
}

std::optional<int> parse_scenario_command(const std::string& command, const std::vector<std::string>& args,
                                          const po::options_description& opts, const std::string& about,
                                          std::string& scenario_path, po::variables_map& vm, std::ostream& out,
                                          std::ostream& err) {
  if (const auto done = parse_command(args, opts, about, Operands("scenario", scenario_path), vm, out, err))
    return done;
  if (scenario_path.empty()) {
    err << "servesim " << command << ": a scenario file is required\n\n" << opts;
    return 2;
  }
  return std::nullopt;
}

std::string options_text(const po::options_description& opts) {
  std::ostringstream text;
  text << opts;
  return text.str();
}

}  // namespace servesim::cli
