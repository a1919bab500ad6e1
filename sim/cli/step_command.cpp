// `servesim step`: the predicted duration of one engine iteration, with its per-operator
// breakdown (docs/cost-model.md, section 6).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/step_report.h"
#include "sim/study/step_study.h"

namespace servesim::cli {

namespace {

namespace po = boost::program_options;

// What follows a usage error: where the options are listed.
const char* const kStepUsageHelp = "(servesim step --help lists the options)\n";

UsageError step_usage(const std::string& message) { return UsageError{message, kStepUsageHelp}; }

// Counts are capped at a billion so that sums of products stay far inside int64.
constexpr std::int64_t kMaxCount = 1'000'000'000;

std::int64_t parse_count(const std::string& text, const std::string& what, std::int64_t lowest) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < lowest ||
      v > kMaxCount) {
    throw step_usage(what + " must be a whole number from " + std::to_string(lowest) + " to " +
                     std::to_string(kMaxCount) + ", got '" + text + "'");
  }
  return v;
}

// "N" or "N:PAST".
PrefillChunk parse_prefill(const std::string& text) {
  const std::size_t colon = text.find(':');
  PrefillChunk c;
  c.new_tokens = parse_count(text.substr(0, colon), "--prefill N", 1);
  if (colon != std::string::npos) {
    c.past_tokens = parse_count(text.substr(colon + 1), "--prefill PAST", 0);
  }
  c.sampled = true;
  return c;
}

// "B:CTX" -> B sequences of CTX context tokens each.
std::pair<std::int64_t, std::int64_t> parse_decode(const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) throw step_usage("--decode takes B:CTX, got '" + text + "'");
  return {parse_count(text.substr(0, colon), "--decode B", 1),
          parse_count(text.substr(colon + 1), "--decode CTX", 0)};
}

po::options_description step_options() {
  po::options_description o("servesim step options");
  o.add_options()
      ("help,h", "print this help")
      ("model", po::value<std::string>(), "model name (models/NAME.yaml), YAML path or HF config.json")
      ("hardware", po::value<std::string>(), "hardware name (configs/hardware/NAME.yaml) or YAML path")
      ("tp", po::value<int>()->default_value(1), "tensor-parallel degree")
      ("pp", po::value<int>()->default_value(1), "pipeline-parallel stages")
      ("ep", po::value<int>()->default_value(1),
       "expert-parallel degree within a stage (MoE models; divides --tp)")
      ("micro-batches", po::value<int>()->default_value(0),
       "with --pp > 1: split the batch into N micro-batches through all stages "
       "(0: one stage's time, pipeline kept full)")
      ("weights", po::value<std::string>()->default_value("bf16"), "weight format: bf16|fp8|int8|int4")
      ("kv", po::value<std::string>()->default_value("bf16"), "KV-cache format: bf16|fp8")
      ("activations", po::value<std::string>()->default_value("bf16"),
       "activation format: bf16|fp8 (fp8 runs the GEMMs at the fp8 peak)")
      ("prefill", po::value<std::vector<std::string>>()->composing(),
       "N[:PAST]: one sequence computing N new prompt tokens over PAST cached ones (repeatable)")
      ("decode", po::value<std::vector<std::string>>()->composing(),
       "B:CTX: B sequences with CTX context tokens each, one new token each (repeatable)")
      ("table", po::value<std::string>(),
       "time operators from a Vidur per-operator profile (mlp.csv) instead of the roofline "
       "where it has them (the `table` cost model)")
      ("cost-model", po::value<std::string>(),
       "roofline or kernels (default: kernels where data/kernels/ has the GPU's tables, else roofline)")
      ("engine", po::value<std::string>()->default_value("vllm"),
       "engine whose measured kernels price the step: vllm|sglang|trtllm")
      ("engine-version", po::value<std::string>(),
       "engine release whose tables to use (default: the engine's, e.g. vLLM 0.14.0)")
      ("cuda-graphs", po::value<int>()->default_value(0),
       "decode-only steps of up to N sequences run padded to the engine's CUDA-graph sizes (0: unpadded)")
      ("json", "print one JSON object instead of a table");
  return o;
}

// `--model --help` asks for the help, though Program_options would read "--help" as the model.
po::variables_map parse_step_options(const std::vector<std::string>& args, const po::options_description& options) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(asks_for_help(args) ? std::vector<std::string>{"--help"} : args)
                  .options(options)
                  .run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw step_usage(e.what());  // Program_options' own words, as a usage error of this command
  }
  return vm;
}

void print_step_help(const po::options_description& options, std::ostream& out) {
  out << "usage: servesim step --model M --hardware H [--tp N] [--pp N] [--ep N] [--micro-batches N]\n"
         "                     [--weights DTYPE] [--kv DTYPE] [--activations DTYPE]\n"
         "                     [--prefill N[:PAST]]... [--decode B:CTX]...\n"
         "                     [--json]\n\n"
         "Predicts the duration of ONE engine iteration whose batch holds every --prefill\n"
         "sequence and every --decode group, from the kernel latencies measured under the\n"
         "engine on this GPU (data/kernels/) where they cover it, else from the hardware\n"
         "profile's roofline, and shows each operator's FLOPs, bytes, time, bound and source.\n\n"
      << options << "\n";
}

Deployment step_deployment(const po::variables_map& vm) {
  Deployment dep;
  dep.tp = vm["tp"].as<int>();
  dep.pp = vm["pp"].as<int>();
  dep.ep = vm["ep"].as<int>();
  dep.micro_batches = vm["micro-batches"].as<int>();
  // Checked by price_step (check_step_request), as the Python package's step is.
  dep.weights = parse_step_dtype(vm["weights"].as<std::string>(), "weights");
  dep.kv = parse_step_dtype(vm["kv"].as<std::string>(), "kv");
  dep.activations = parse_step_dtype(vm["activations"].as<std::string>(), "activations");
  return dep;
}

// The batch of every --prefill and --decode; `longest_tokens` becomes the longest sequence
// once the step is done.
BatchShape step_batch(const po::variables_map& vm, std::int64_t& longest_tokens) {
  BatchShape batch;
  longest_tokens = 0;
  if (vm.count("prefill")) {
    for (const std::string& p : vm["prefill"].as<std::vector<std::string>>()) {
      batch.prefills.push_back(parse_prefill(p));
      longest_tokens = std::max(longest_tokens, batch.prefills.back().past_tokens + batch.prefills.back().new_tokens);
    }
  }
  if (vm.count("decode")) {
    const auto& groups = vm["decode"].as<std::vector<std::string>>();
    if (groups.size() > 1000) throw step_usage("at most 1000 --decode groups");
    for (const std::string& d : groups) {
      const auto [seqs, context] = parse_decode(d);
      longest_tokens = std::max(longest_tokens, context + 1);
      batch.decode_seqs += seqs;
      batch.decode_context_sum += seqs * context;
    }
  }
  return batch;
}

// Whether --engine, --engine-version or --cuda-graphs was given: these pick and shape the
// measured kernel tables; a step the roofline or a Vidur table prices would come out the
// same whatever they say.
bool engine_options_given(const po::variables_map& vm) {
  return !vm["engine"].defaulted() || vm.count("engine-version") > 0 || !vm["cuda-graphs"].defaulted();
}

StepRequest step_request(const po::variables_map& vm) {
  StepRequest request;
  request.model = vm["model"].as<std::string>();
  request.hardware = vm["hardware"].as<std::string>();
  request.cost_model = vm.count("cost-model") ? vm["cost-model"].as<std::string>() : "";
  if (vm.count("table")) {
    if (!request.cost_model.empty()) throw step_usage("give --table or --cost-model, not both");
    request.table_path = vm["table"].as<std::string>();
  }
  request.engine = vm["engine"].as<std::string>();
  request.engine_version = vm.count("engine-version") ? vm["engine-version"].as<std::string>() : "";
  request.cuda_graph_max_batch = vm["cuda-graphs"].as<int>();
  if (engine_options_given(vm) && (request.cost_model == "roofline" || !request.table_path.empty())) {
    throw step_usage("--engine, --engine-version and --cuda-graphs choose the measured kernel tables, which " +
                     std::string(request.table_path.empty() ? "--cost-model roofline" : "--table") + " does not use");
  }
  return request;
}

// A sequence beyond the model's context is priced all the same (the operators scale), but
// no engine serving the model runs it; engine options the roofline ignored had no effect.
void print_step_warnings(const StepStudy& step, std::int64_t longest_tokens, bool engine_options, std::ostream& err) {
  if (step.model.max_context_tokens > 0 && longest_tokens > step.model.max_context_tokens)
    err << "servesim step: warning: a sequence reaches " << longest_tokens << " tokens, beyond " << step.model.name
        << "'s context of " << step.model.max_context_tokens
        << " (max_context_tokens): an engine serving it refuses such a request\n";
  // The release the tables stand for, or why the roofline priced the step after all.
  if (engine_options && !step.cost_model_note.empty()) {
    err << "servesim step: warning: ";
    if (step.cost_model.rfind("roofline", 0) == 0)
      err << "the roofline priced the step, so --engine, --engine-version and --cuda-graphs had no effect; ";
    err << step.cost_model_note << "\n";
  }
}

}  // namespace

int step_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const po::options_description options = step_options();
  const po::variables_map vm = parse_step_options(args, options);
  if (vm.count("help")) {
    print_step_help(options, out);
    return 0;
  }
  if (!vm.count("model") || !vm.count("hardware")) throw step_usage("--model and --hardware are required");
  const Deployment dep = step_deployment(vm);
  std::int64_t longest_tokens = 0;
  const BatchShape batch = step_batch(vm, longest_tokens);
  StepRequest request = step_request(vm);
  request.dep = dep;
  request.batch = batch;
  // price_step checks the cost model, engine and CUDA-graph size (ConfigError, exit 2).
  const StepStudy step = price_step(request);
  print_step_warnings(step, longest_tokens, engine_options_given(vm), err);
  if (vm.count("json")) {
    out << step_to_json(step).dump(2) << "\n";
  } else {
    print_step_table(step, out);
  }
  return 0;
}

}  // namespace servesim::cli
