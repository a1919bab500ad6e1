// Reads `vllm_bench_serve:` (vllm_bench_parse.h). The option names, kinds and defaults are
// vllm's: vllm/benchmarks/datasets/arg_utils.py add_dataset_parser and
// vllm/benchmarks/serve.py add_cli_args; the checks in finish() are those of serve.py
// main_async and of the datasets' sample().
#include "sim/scenario/vllm_bench_parse.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <optional>

#include "sim/scenario/data_paths.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/workload/benchmark/vllm_bench_serve_source.h"

namespace servesim {
namespace {

// Keys a class with `vllm_bench_serve` may also have.
const std::vector<std::string> kCompatibleClassKeys = {"class", "vllm_bench_serve", "slo", "priority", "model"};
// servesim's own keys in the mapping form.
const std::vector<std::string> kOwnKeys = {"args", "special_tokens", "lengths"};

// Limits that keep a run's request list in memory and its counts exact.
constexpr std::int64_t kMaxPrompts = 2'000'000;
constexpr std::int64_t kMaxWarmups = 1'000'000;
// A tokenizer adds a handful of special tokens at most (BOS, a role marker).
constexpr std::int64_t kMaxSpecialTokens = 64;

enum class Kind {
  value,     // --opt V
  toggle,    // --opt (no value)
  values,    // --opt V1 V2 ... (argparse nargs * or +)
};

// What an option does here.
enum class Effect {
  load,       // read into VllmBenchServeArgs
  none,       // accepted: changes nothing servesim models
  refused,    // changes the load in a way servesim does not model
};

struct Option {
  const char* name;  // canonical, dashes, no leading --
  Kind kind;
  Effect effect;
  const char* why = "";  // refused: what it changes
};

// Every option of vllm bench serve, by what it does to the load: three tables, one per
// effect, joined by options().
const Option kLoadOptions[] = {
  // The load: dataset and traffic.
  {"seed", Kind::value, Effect::load},
  {"num-prompts", Kind::value, Effect::load},
  {"dataset-name", Kind::value, Effect::load},
  {"dataset-path", Kind::value, Effect::load},
  {"no-oversample", Kind::toggle, Effect::load},
  {"disable-shuffle", Kind::toggle, Effect::load},
  {"input-len", Kind::value, Effect::load},
  {"output-len", Kind::value, Effect::load},
  {"random-input-len", Kind::value, Effect::load},
  {"random-output-len", Kind::value, Effect::load},
  {"random-range-ratio", Kind::value, Effect::load},
  {"random-prefix-len", Kind::value, Effect::load},
  {"random-batch-size", Kind::value, Effect::load},
  {"prefix-repetition-prefix-len", Kind::value, Effect::load},
  {"prefix-repetition-suffix-len", Kind::value, Effect::load},
  {"prefix-repetition-num-prefixes", Kind::value, Effect::load},
  {"prefix-repetition-output-len", Kind::value, Effect::load},
  {"sharegpt-output-len", Kind::value, Effect::load},
  {"request-rate", Kind::value, Effect::load},
  {"burstiness", Kind::value, Effect::load},
  {"max-concurrency", Kind::value, Effect::load},
  {"ramp-up-strategy", Kind::value, Effect::load},
  {"ramp-up-start-rps", Kind::value, Effect::load},
  {"ramp-up-end-rps", Kind::value, Effect::load},
  {"num-warmups", Kind::value, Effect::load},
  {"ready-check-timeout-sec", Kind::value, Effect::load},
  {"probe-request-rate", Kind::value, Effect::load},
};

const Option kInertOptions[] = {
  // Where the server is, what the client records, sampling: no effect on the load.
  {"model", Kind::value, Effect::none},
  {"served-model-name", Kind::value, Effect::none},
  {"tokenizer", Kind::value, Effect::none},
  {"tokenizer-mode", Kind::value, Effect::none},
  {"trust-remote-code", Kind::toggle, Effect::none},
  {"skip-tokenizer-init", Kind::toggle, Effect::none},
  {"backend", Kind::value, Effect::none},
  {"base-url", Kind::value, Effect::none},
  {"host", Kind::value, Effect::none},
  {"port", Kind::value, Effect::none},
  {"endpoint", Kind::value, Effect::none},
  {"header", Kind::values, Effect::none},
  {"insecure", Kind::toggle, Effect::none},
  {"label", Kind::value, Effect::none},
  {"save-result", Kind::toggle, Effect::none},
  {"save-detailed", Kind::toggle, Effect::none},
  {"append-result", Kind::toggle, Effect::none},
  {"metadata", Kind::values, Effect::none},
  {"result-dir", Kind::value, Effect::none},
  {"result-filename", Kind::value, Effect::none},
  {"percentile-metrics", Kind::value, Effect::none},
  {"metric-percentiles", Kind::value, Effect::none},
  {"goodput", Kind::values, Effect::none},
  {"disable-tqdm", Kind::toggle, Effect::none},
  {"request-id-prefix", Kind::value, Effect::none},
  {"profile", Kind::toggle, Effect::none},
  {"plot-timeline", Kind::toggle, Effect::none},
  {"timeline-itl-thresholds", Kind::value, Effect::none},
  {"plot-dataset-stats", Kind::toggle, Effect::none},
  {"no-stream", Kind::toggle, Effect::none},
  {"skip-chat-template", Kind::toggle, Effect::none},
  {"chat-template-kwargs", Kind::value, Effect::none},
  {"extra-body", Kind::value, Effect::none},
  // servesim generates exactly each request's output length, as --ignore-eos asks.
  {"ignore-eos", Kind::toggle, Effect::none},
  {"logprobs", Kind::value, Effect::none},
  {"temperature", Kind::value, Effect::none},
  {"top-p", Kind::value, Effect::none},
  {"top-k", Kind::value, Effect::none},
  {"min-p", Kind::value, Effect::none},
  {"frequency-penalty", Kind::value, Effect::none},
  {"presence-penalty", Kind::value, Effect::none},
  {"repetition-penalty", Kind::value, Effect::none},
  // Other datasets' options: the tool ignores them for random, prefix_repetition and sharegpt.
  {"custom-output-len", Kind::value, Effect::none},
  {"spec-bench-output-len", Kind::value, Effect::none},
  {"spec-bench-category", Kind::value, Effect::none},
  {"sonnet-input-len", Kind::value, Effect::none},
  {"sonnet-output-len", Kind::value, Effect::none},
  {"sonnet-prefix-len", Kind::value, Effect::none},
  {"blazedit-min-distance", Kind::value, Effect::none},
  {"blazedit-max-distance", Kind::value, Effect::none},
  {"hf-subset", Kind::value, Effect::none},
  {"hf-split", Kind::value, Effect::none},
  {"hf-name", Kind::value, Effect::none},
  {"hf-output-len", Kind::value, Effect::none},
  {"random-mm-base-items-per-request", Kind::value, Effect::none},
  {"random-mm-num-mm-items-range-ratio", Kind::value, Effect::none},
  {"random-mm-limit-mm-per-prompt", Kind::value, Effect::none},
  {"random-mm-bucket-config", Kind::value, Effect::none},
  {"no-reranker", Kind::toggle, Effect::none},
};

const Option kRefusedOptions[] = {
  // Changes the load in ways servesim does not model.
  {"lora-modules", Kind::values, Effect::refused, "sends requests to LoRA adapters"},
  {"lora-assignment", Kind::value, Effect::refused, "assigns LoRA adapters"},
  {"use-beam-search", Kind::toggle, Effect::refused, "asks for beam search"},
  {"self-timed", Kind::toggle, Effect::refused, "takes send times from a timed_trace dataset"},
  {"no-self-timed", Kind::toggle, Effect::refused, "applies to the timed_trace dataset only"},
};

const std::vector<Option>& options() {
  static const std::vector<Option> table = [] {
    std::vector<Option> all(std::begin(kLoadOptions), std::end(kLoadOptions));
    all.insert(all.end(), std::begin(kInertOptions), std::end(kInertOptions));
    all.insert(all.end(), std::begin(kRefusedOptions), std::end(kRefusedOptions));
    return all;
  }();
  return table;
}

std::vector<std::string> option_names() {
  std::vector<std::string> names;
  for (const Option& o : options()) names.push_back(std::string("--") + o.name);
  return names;
}

// "--random_input_len", "random-input-len" -> "random-input-len".
std::string canonical(std::string_view name) {
  if (name.substr(0, 2) == "--") name.remove_prefix(2);
  std::string out(name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

const Option* find_option(const std::string& canonical_name) {
  for (const Option& o : options())
    if (canonical_name == o.name) return &o;
  return nullptr;
}

// Python's int(): an optional sign and digits.
std::optional<std::int64_t> parse_int(const std::string& text) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// Python's float(), infinities included; NaN is refused (no rate or ratio is NaN).
std::optional<double> parse_float(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(value)) return std::nullopt;
  return value;
}

class Parser {
 public:
  // Applies option `raw_name` (as written) with `value` (absent for a toggle), failing at `at`.
  void set(const std::string& raw_name, const std::optional<std::string>& value, const Field& at) {
    const std::string name = canonical(raw_name);
    const Option* option = find_option(name);
    const std::string shown = "--" + name;
    if (!option) at.fail(unknown_choice_message("vllm bench serve option", "options", "--" + name, option_names()));
    if (std::find(seen_.begin(), seen_.end(), name) != seen_.end())
      at.fail(shown + " is given twice (give each option once)");
    seen_.push_back(name);
    if (option->kind == Kind::toggle && value) at.fail(shown + " takes no value, got '" + *value + "'");
    if (option->kind != Kind::toggle && (!value || value->empty())) at.fail(shown + " needs a value");
    if (option->effect == Effect::refused)
      at.fail(shown + " " + option->why + ", which servesim does not model; remove it to replay the rest");
    if (option->effect == Effect::none) return;
    apply(name, shown, value.value_or(""), at);
  }

  VllmBenchServeArgs finish(const Field& at) {
    VllmBenchServeArgs& a = args_;
    // serve.py main_async: the general lengths map onto every dataset's own.
    if (input_len_) a.random_input_len = *input_len_;
    if (output_len_) {
      a.random_output_len = *output_len_;
      a.sharegpt_output_len = *output_len_;
      a.prefix_repetition_output_len = *output_len_;
    }
    const std::string dataset = vllm_bench_dataset_name(a.dataset);
    if (dataset_path_ && a.dataset != VllmBenchServeArgs::Dataset::sharegpt)
      at.fail("--dataset-path: the " + dataset + " dataset takes no --dataset-path (vllm refuses it too)");
    if (a.dataset == VllmBenchServeArgs::Dataset::sharegpt && a.lengths_path.empty()) {
      at.fail("the sharegpt dataset's prompts are its JSON file's conversations, which servesim cannot "
              "tokenize: give their token lengths as `vllm_bench_serve: {args: \"...\", lengths: FILE.csv}` "
              "(columns num_prefill_tokens and num_decode_tokens, one row per conversation, e.g. "
              "data/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv), or use --dataset-name random "
              "or prefix_repetition");
    }
    if (!a.lengths_path.empty() && a.dataset != VllmBenchServeArgs::Dataset::sharegpt)
      at.fail("'lengths' is the sharegpt dataset's lengths file; the " + dataset + " dataset makes its own prompts");
    // serve.py main_async's ramp-up checks.
    if (a.ramp_up != VllmBenchServeArgs::RampUp::none) {
      if (a.request_rate_per_s)
        at.fail("--ramp-up-strategy sets the rate; remove --request-rate (vllm refuses both)");
      if (!seen("ramp-up-start-rps") || !seen("ramp-up-end-rps"))
        at.fail("--ramp-up-strategy needs both --ramp-up-start-rps and --ramp-up-end-rps");
      if (a.ramp_up_start_rps > a.ramp_up_end_rps)
        at.fail("--ramp-up-start-rps " + std::to_string(a.ramp_up_start_rps) + " is above --ramp-up-end-rps " +
                std::to_string(a.ramp_up_end_rps) + " (vllm refuses a ramp down)");
      // get_request asserts a positive rate for every request, the first included.
      if (a.ramp_up_start_rps == 0)
        at.fail("--ramp-up-start-rps 0: the first request's rate would be 0, which vllm's get_request refuses");
    } else if (seen("ramp-up-start-rps") || seen("ramp-up-end-rps")) {
      at.fail("--ramp-up-start-rps and --ramp-up-end-rps take effect only with --ramp-up-strategy");
    }
    switch (a.dataset) {
      case VllmBenchServeArgs::Dataset::random: {
        // RandomDataset.sample: at least one input token besides the special ones.
        const TokenInterval in = vllm_bench_random_input_interval(a);
        if (a.random_prefix_len + in.low < 1)
          at.fail("--random-input-len " + std::to_string(a.random_input_len) + " with --random-range-ratio " +
                  format_number(a.random_range_ratio) + " and --random-prefix-len " +
                  std::to_string(a.random_prefix_len) + " can draw a prompt of 0 tokens (vllm refuses it)");
        break;
      }
      case VllmBenchServeArgs::Dataset::prefix_repetition:
        if (a.num_prompts < a.prefix_repetition_num_prefixes)
          at.fail("--num-prompts " + std::to_string(a.num_prompts) + " is below --prefix-repetition-num-prefixes " +
                  std::to_string(a.prefix_repetition_num_prefixes) + " (vllm refuses it: no prompts per prefix)");
        if (a.special_tokens + a.prefix_repetition_prefix_len + a.prefix_repetition_suffix_len < 1)
          at.fail("--prefix-repetition-prefix-len and --prefix-repetition-suffix-len are both 0: the prompts "
                  "would be empty");
        break;
      case VllmBenchServeArgs::Dataset::sharegpt:
        break;
    }
    return args_;
  }

  VllmBenchServeArgs& args() { return args_; }

 private:
  bool seen(const char* name) const { return std::find(seen_.begin(), seen_.end(), name) != seen_.end(); }

  static std::int64_t integer(const std::string& shown, const std::string& text, std::int64_t lowest,
                              std::int64_t highest, const Field& at) {
    const std::optional<std::int64_t> v = parse_int(text);
    if (!v) at.fail(shown + " expects a whole number, got '" + text + "'");
    if (*v < lowest || *v > highest)
      at.fail(shown + " must be from " + std::to_string(lowest) + " to " + std::to_string(highest) + ", got " + text);
    return *v;
  }

  static double number(const std::string& shown, const std::string& text, const Field& at) {
    const std::optional<double> v = parse_float(text);
    if (!v) at.fail(shown + " expects a number, got '" + text + "'");
    return *v;
  }

  static constexpr std::int64_t kBig = std::int64_t{1} << 40;  // lengths and seconds beyond any run

  void apply(const std::string& name, const std::string& shown, const std::string& v, const Field& at) {
    if (!apply_dataset(name, shown, v, at)) apply_traffic(name, shown, v, at);
  }

  // The dataset's options; false for another name.
  bool apply_dataset(const std::string& name, const std::string& shown, const std::string& v, const Field& at) {
    VllmBenchServeArgs& a = args_;
    const auto len = [&](std::int64_t lowest) { return integer(shown, v, lowest, kBig, at); };
    if (name == "seed") {
      a.seed = integer(shown, v, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), at);
    } else if (name == "num-prompts") {
      a.num_prompts = integer(shown, v, 1, kMaxPrompts, at);
    } else if (name == "dataset-name") {
      set_dataset(shown, v, at);
    } else if (name == "dataset-path") {
      dataset_path_ = v;
    } else if (name == "no-oversample") {
      a.no_oversample = true;
    } else if (name == "disable-shuffle") {
      a.disable_shuffle = true;
    } else if (name == "input-len") {
      input_len_ = len(0);
    } else if (name == "output-len") {
      output_len_ = len(0);
    } else if (name == "random-input-len") {
      a.random_input_len = len(0);
    } else if (name == "random-output-len") {
      a.random_output_len = len(0);
    } else if (name == "random-range-ratio") {
      const double r = number(shown, v, at);
      // get_sampling_params: "range_ratio must be in [0, 1)".
      if (!(r >= 0 && r < 1)) at.fail(shown + " must be in [0, 1) (vllm refuses others), got " + v);
      a.random_range_ratio = r;
    } else if (name == "random-prefix-len") {
      a.random_prefix_len = len(0);
    } else if (name == "random-batch-size") {
      if (integer(shown, v, 1, kBig, at) != 1)
        at.fail(shown + " batches prompts into one embeddings request, which servesim does not model");
    } else if (name == "prefix-repetition-prefix-len") {
      a.prefix_repetition_prefix_len = len(0);
    } else if (name == "prefix-repetition-suffix-len") {
      a.prefix_repetition_suffix_len = len(0);
    } else if (name == "prefix-repetition-num-prefixes") {
      a.prefix_repetition_num_prefixes = integer(shown, v, 1, kMaxPrompts, at);
    } else if (name == "prefix-repetition-output-len") {
      a.prefix_repetition_output_len = len(1);
    } else if (name == "sharegpt-output-len") {
      a.sharegpt_output_len = len(1);
    } else {
      return false;
    }
    return true;
  }

  void set_dataset(const std::string& shown, const std::string& v, const Field& at) {
    VllmBenchServeArgs& a = args_;
    static const std::vector<std::string> kSupported = {"random", "prefix_repetition", "sharegpt"};
    static const std::vector<std::string> kOthers = {"burstgpt", "sonnet",  "random-mm",  "random-rerank", "hf",
                                                     "custom",   "spec_bench", "txt-slices", "timed_trace"};
    if (v == "random") a.dataset = VllmBenchServeArgs::Dataset::random;
    else if (v == "prefix_repetition") a.dataset = VllmBenchServeArgs::Dataset::prefix_repetition;
    else if (v == "sharegpt") a.dataset = VllmBenchServeArgs::Dataset::sharegpt;
    else if (std::find(kOthers.begin(), kOthers.end(), v) != kOthers.end())
      at.fail(shown + " " + v + " is not modelled: servesim replays " + join_choices(kSupported) +
              " (for another dataset, replay the run's result file: trace: {format: vllm-bench})");
    else
      at.fail(shown + ": " + unknown_choice_message("dataset", "datasets", v, kSupported));
  }

  // The traffic's options (rate, burstiness, concurrency, ramp-up, warm-ups, probes).
  void apply_traffic(const std::string& name, const std::string& shown, const std::string& v, const Field& at) {
    VllmBenchServeArgs& a = args_;
    if (name == "request-rate") {
      const double rate = number(shown, v, at);
      if (!(rate > 0)) at.fail(shown + " must be > 0 (or inf), got " + v);
      if (std::isinf(rate)) a.request_rate_per_s.reset();
      else a.request_rate_per_s = rate;
    } else if (name == "burstiness") {
      const double b = number(shown, v, at);
      if (!(b > 0)) at.fail(shown + " must be > 0 (vllm asserts it), got " + v);
      a.burstiness = b;
    } else if (name == "max-concurrency") {
      a.max_concurrency = integer(shown, v, 1, 1'000'000'000, at);
    } else if (name == "ramp-up-strategy") {
      if (v == "linear") a.ramp_up = VllmBenchServeArgs::RampUp::linear;
      else if (v == "exponential") a.ramp_up = VllmBenchServeArgs::RampUp::exponential;
      else at.fail(shown + " is linear or exponential, got '" + v + "'");
    } else if (name == "ramp-up-start-rps") {
      a.ramp_up_start_rps = integer(shown, v, 0, 1'000'000'000, at);
    } else if (name == "ramp-up-end-rps") {
      a.ramp_up_end_rps = integer(shown, v, 0, 1'000'000'000, at);
    } else if (name == "num-warmups") {
      a.num_warmups = integer(shown, v, 0, kMaxWarmups, at);
    } else if (name == "ready-check-timeout-sec") {
      a.ready_check_timeout_s = integer(shown, v, 0, kBig, at);
    } else if (name == "probe-request-rate") {
      if (number(shown, v, at) != 0)
        at.fail(shown + " sends probe requests beside the load, which servesim does not model (0 is accepted)");
    }
  }

  VllmBenchServeArgs args_;
  std::vector<std::string> seen_;
  std::optional<std::int64_t> input_len_, output_len_;
  std::optional<std::string> dataset_path_;
};

// Applies the words of a command line (after split_command_line).
void apply_words(Parser& parser, const std::vector<std::string>& words, const Field& at) {
  std::size_t i = 0;
  // A pasted command may start with the command itself.
  if (words.size() >= 3 && words[0] == "vllm" && words[1] == "bench" && words[2] == "serve") i = 3;
  while (i < words.size()) {
    const std::string& word = words[i++];
    if (word.size() < 3 || word.substr(0, 2) != "--")
      at.fail("expected an option starting with --, got '" + word + "' (give the options of `vllm bench serve`)");
    const std::size_t eq = word.find('=');
    const std::string raw = word.substr(0, eq);
    const Option* option = find_option(canonical(raw));
    if (eq != std::string::npos) {
      parser.set(raw, word.substr(eq + 1), at);
      continue;
    }
    if (!option || option->kind == Kind::toggle) {
      parser.set(raw, std::nullopt, at);
      continue;
    }
    // A value is the next word unless that is an option (argparse takes "-1" as a value).
    std::string value;
    bool any = false;
    while (i < words.size() && words[i].substr(0, 2) != "--") {
      value += (any ? " " : "") + words[i++];
      any = true;
      if (option->kind == Kind::value) break;
    }
    parser.set(raw, any ? std::optional<std::string>(value) : std::nullopt, at);
  }
}

// A mapping value as option text: a scalar as written, a list's items joined by spaces, a
// toggle's `true` as no value.
std::optional<std::string> option_value(const Field& f, const std::string& name) {
  const Option* option = find_option(canonical(name));
  if (option && option->kind == Kind::toggle) return std::nullopt;
  if (f.is_list()) {
    std::string joined;
    for (const Field& item : f.items()) joined += (joined.empty() ? "" : " ") + item.as_string();
    return joined;
  }
  if (f.is_null()) return std::nullopt;
  return f.as_string();
}

}  // namespace

std::vector<std::string> split_command_line(const std::string& text, const Field& at) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      const char next = text[++i];
      if (next == '\n') continue;  // a continuation line
      if (next == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
        ++i;
        continue;
      }
      word += next;
      in_word = true;
    } else if (c == '\'' || c == '"') {
      const std::size_t close = text.find(c, i + 1);
      if (close == std::string::npos) at.fail(std::string("unterminated ") + c + " quote in the command line");
      std::string quoted = text.substr(i + 1, close - i - 1);
      if (c == '"') {
        // Inside double quotes a backslash escapes \ and " only, as in a POSIX shell.
        std::string unescaped;
        for (std::size_t k = 0; k < quoted.size(); ++k) {
          if (quoted[k] == '\\' && k + 1 < quoted.size() && (quoted[k + 1] == '\\' || quoted[k + 1] == '"')) ++k;
          unescaped += quoted[k];
        }
        quoted = unescaped;
      }
      word += quoted;
      in_word = true;
      i = close;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

TraceSpec parse_vllm_bench_serve(const Field& cls, const Field& value) {
  for (const std::string& k : cls.keys()) {
    if (std::find(kCompatibleClassKeys.begin(), kCompatibleClassKeys.end(), k) != kCompatibleClassKeys.end()) continue;
    cls.get(k)->fail_at_key("'" + k + "' cannot be combined with 'vllm_bench_serve': its options give the arrivals "
                            "and the prompts (a class with it takes only " + join_choices(kCompatibleClassKeys) + ")");
  }
  Parser parser;
  std::string command;
  std::string lengths_path;
  if (value.is_map()) {
    for (const std::string& k : value.keys()) {
      const Field child = *value.get(k);
      if (k == "args") {
        command += (command.empty() ? "" : " ") + child.as_string();
        apply_words(parser, split_command_line(child.as_string(), child), child);
      } else if (k == "special_tokens") {
        const std::int64_t n = child.int_at_least(0);
        if (n > kMaxSpecialTokens) child.fail("must be at most " + std::to_string(kMaxSpecialTokens));
        parser.args().special_tokens = n;
      } else if (k == "lengths") {
        lengths_path = existing_data_path(child, "lengths file");
      } else {
        const Option* option = find_option(canonical(k));
        // A switch set to false is one not given.
        if (option && option->kind == Kind::toggle && !child.is_null() && !child.as_bool()) continue;
        const std::optional<std::string> v = option_value(child, k);
        command += (command.empty() ? "--" : " --") + canonical(k) + (v ? " " + *v : "");
        parser.set(k, v, child);
      }
    }
  } else {
    command = value.as_string();
    apply_words(parser, split_command_line(command, value), value);
  }
  parser.args().lengths_path = lengths_path;
  VllmBenchServeArgs args = parser.finish(value);
  args.command = command;
  TraceSpec spec;
  spec.format = "vllm-bench-serve";
  spec.path = args.lengths_path;
  spec.vllm_bench_serve = std::move(args);
  return spec;
}

std::string describe_vllm_bench_serve(const VllmBenchServeArgs& a) {
  std::string out = std::string("vllm bench serve ") + vllm_bench_dataset_name(a.dataset) + ": ";
  switch (a.dataset) {
    case VllmBenchServeArgs::Dataset::random: {
      const TokenInterval in = vllm_bench_random_input_interval(a);
      const TokenInterval o = vllm_bench_random_output_interval(a);
      out += "input " + std::to_string(in.low) + " to " + std::to_string(in.high) + " tokens";
      if (a.random_prefix_len > 0) out += " after a shared prefix of " + std::to_string(a.random_prefix_len);
      out += ", output " + std::to_string(o.low) + " to " + std::to_string(o.high);
      break;
    }
    case VllmBenchServeArgs::Dataset::prefix_repetition:
      out += std::to_string(a.prefix_repetition_num_prefixes) + " prefixes of " +
             std::to_string(a.prefix_repetition_prefix_len) + " tokens, each with " +
             std::to_string(a.num_prompts / a.prefix_repetition_num_prefixes) + " suffixes of " +
             std::to_string(a.prefix_repetition_suffix_len) + ", output " +
             std::to_string(a.prefix_repetition_output_len);
      break;
    case VllmBenchServeArgs::Dataset::sharegpt:
      out += "lengths " + a.lengths_path;
      break;
  }
  if (a.special_tokens > 0) out += " (+" + std::to_string(a.special_tokens) + " special)";
  out += "; " + std::to_string(a.num_prompts) + " prompts at ";
  if (a.ramp_up != VllmBenchServeArgs::RampUp::none) {
    out += std::string(a.ramp_up == VllmBenchServeArgs::RampUp::linear ? "linear" : "exponential") + " ramp " +
           std::to_string(a.ramp_up_start_rps) + " to " + std::to_string(a.ramp_up_end_rps) + " req/s";
  } else {
    out += a.request_rate_per_s ? format_number(*a.request_rate_per_s) + " req/s" : std::string("rate inf");
  }
  if (a.burstiness != 1.0) out += ", burstiness " + format_number(a.burstiness);
  if (a.max_concurrency) out += ", max concurrency " + std::to_string(*a.max_concurrency);
  if (a.ready_check_timeout_s > 0) out += ", ready check";
  if (a.num_warmups > 0) out += ", " + std::to_string(a.num_warmups) + " warm-ups";
  return out;
}

}  // namespace servesim
