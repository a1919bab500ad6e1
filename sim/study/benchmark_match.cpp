// A benchmark file's stated deployment against a scenario's pools.
#include "sim/study/benchmark_match.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <regex>

#include "sim/hardware/cost_model_spec.h"

namespace servesim {
namespace {

// Model families whose names never denote one another's checkpoints: two names in
// different families are different models whatever their sizes.
const char* const kFamilies[] = {"llama", "qwen",  "mistral", "mixtral", "deepseek", "yi",   "gemma",  "phi",
                                 "falcon", "granite", "olmo", "glm",   "internlm", "baichuan", "gpt", "opt"};

// Words a checkpoint's name adds to its base model's without changing the architecture:
// the tuned variant, the Hugging Face port, the weight format.
const char* const kVariantWords[] = {"instruct", "chat", "hf",  "it",   "base", "fp8",  "fp16", "bf16",
                                     "awq",      "gptq", "int4", "int8", "w8a8", "w4a16", "dynamic"};

struct NameParts {
  std::vector<std::string> tokens;
  std::string family;  // one of kFamilies, or ""
  double size = 0;     // parameters the name states ("70b", "8x7b" = 56e9); 0: none
  double active = 0;   // active parameters it states (Qwen3-30B-"a3b")
  std::string text() const {
    std::string out;
    for (const std::string& t : tokens) out += (out.empty() ? "" : "-") + t;
    return out;
  }
};

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

NameParts parse_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  // A model card or config URL: huggingface.co/ORG/NAME/...
  if (const auto at = name.find("huggingface.co/"); at != std::string::npos) {
    name = name.substr(at + 15);
    const auto org_end = name.find('/');
    const auto name_end = org_end == std::string::npos ? std::string::npos : name.find('/', org_end + 1);
    name = name.substr(0, name_end);
  }
  while (!name.empty() && name.back() == '/') name.pop_back();
  if (const auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);

  std::vector<std::string> raw;
  std::string token;
  for (char c : name + "-") {
    if (c == '-' || c == '_' || c == ' ') {
      if (!token.empty()) raw.push_back(token);
      token.clear();
    } else {
      token += c;
    }
  }
  if (!raw.empty() && raw.front() == "meta") raw.erase(raw.begin());  // Meta-Llama-3-8B
  // "qwen2.5" and "llama3" are "qwen 2.5" and "llama 3".
  if (!raw.empty()) {
    const std::string first = raw.front();
    std::size_t letters = 0;
    while (letters < first.size() && std::isalpha(static_cast<unsigned char>(first[letters]))) ++letters;
    if (letters > 0 && letters < first.size() && std::isdigit(static_cast<unsigned char>(first[letters]))) {
      raw.front() = first.substr(0, letters);
      raw.insert(raw.begin() + 1, first.substr(letters));
    }
  }

  static const std::regex kSize(R"(^(\d+(?:\.\d+)?)([bm])$)");
  static const std::regex kExperts(R"(^(\d+)x(\d+(?:\.\d+)?)b$)");
  static const std::regex kActive(R"(^a(\d+(?:\.\d+)?)b$)");
  static const std::regex kRelease(R"(^v\d+(?:\.\d+)+$)");  // Mistral-7B-v0.1
  NameParts parts;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const std::string& t = raw[i];
    std::smatch m;
    if (t.size() > 16) {  // no size or word of interest is this long (and stod stays in range)
      parts.tokens.push_back(t);
      continue;
    }
    if (std::find(std::begin(kVariantWords), std::end(kVariantWords), t) != std::end(kVariantWords)) continue;
    if (i > 0 && t.size() == 4 && all_digits(t)) continue;  // a release date: DeepSeek-V3-0324, ...-2507
    if (parts.size > 0 && std::regex_match(t, kRelease)) continue;
    if (parts.size == 0 && std::regex_match(t, m, kSize)) {
      parts.size = std::stod(m[1]) * (m[2] == "b" ? 1e9 : 1e6);
    } else if (parts.size == 0 && std::regex_match(t, m, kExperts)) {
      parts.size = std::stod(m[1]) * std::stod(m[2]) * 1e9;
    } else if (std::regex_match(t, m, kActive)) {
      parts.active = std::stod(m[1]) * 1e9;
    }
    parts.tokens.push_back(t);
  }
  if (!parts.tokens.empty() &&
      std::find(std::begin(kFamilies), std::end(kFamilies), parts.tokens.front()) != std::end(kFamilies)) {
    parts.family = parts.tokens.front();
  }
  return parts;
}

std::string size_text(double parameters) {
  char buf[32];
  if (parameters >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.3gB", parameters / 1e9);
  } else {
    std::snprintf(buf, sizeof buf, "%.3gM", parameters / 1e6);
  }
  return buf;
}

// Within `factor` of each other.
bool near(double a, double b, double factor) { return a > 0 && b > 0 && std::max(a / b, b / a) <= factor; }

// The names a model spec goes by: its own, and the Hugging Face id in its source.
std::vector<NameParts> names_of(const ModelSpec& model) {
  std::vector<NameParts> names = {parse_name(model.name)};
  if (model.source.find("huggingface.co/") != std::string::npos) names.push_back(parse_name(model.source));
  return names;
}

std::string engine_text(const PoolConfig& pool) {
  const std::string family = kernel_engine_family(pool.engine.preset);
  if (pool.engine.preset.empty()) return "the default engine, which follows " + family;
  return "engine preset " + pool.engine.preset + " (" + family + ")";
}

void check_model(const std::string& name, const std::string& key, const std::string& what, const PoolConfig& pool,
                 BenchmarkMatch& out) {
  if (name.empty()) return;
  std::string why;
  const ModelVerdict verdict = compare_model_name(name, pool.model, &why);
  const std::string head = key + ": the benchmark's " + what + " is " + name + ", pool " + pool.name + "'s model is " +
                           pool.model.name;
  if (verdict == ModelVerdict::different) out.mismatches.push_back(head + " (" + why + ")");
  if (verdict == ModelVerdict::unsure) out.doubts.push_back(head + " (" + why + ")");
}

}  // namespace

ModelVerdict compare_model_name(const std::string& name, const ModelSpec& model, std::string* why) {
  const NameParts theirs = parse_name(name);
  const std::vector<NameParts> ours = names_of(model);
  for (const NameParts& n : ours) {
    if (!n.tokens.empty() && n.text() == theirs.text()) return ModelVerdict::same;
  }
  const auto say = [&](const std::string& text) {
    if (why != nullptr) *why = text;
  };
  std::string family;
  double size = 0;
  for (const NameParts& n : ours) {
    if (family.empty()) family = n.family;
    if (size == 0) size = n.size;
  }
  if (!theirs.family.empty() && !family.empty() && theirs.family != family) {
    say("a " + theirs.family + " model against a " + family + " model");
    return ModelVerdict::different;
  }
  if (theirs.size > 0 && size > 0) {
    // Both names state a size, rounded the same way by the model's makers.
    if (!near(theirs.size, size, 1.1)) {
      say("the names state " + size_text(theirs.size) + " and " + size_text(size) + " parameters");
      return ModelVerdict::different;
    }
  } else if (theirs.size > 0) {
    // A name's size is its total (or, for some MoE models, its active) parameters, rounded:
    // Llama-3.2-1B has 1.24B, Mixtral-8x7B 46.7B.
    const double total = model.parameter_count(), active = model.active_parameter_count();
    if (!near(theirs.size, total, 1.35) && !near(theirs.size, active, 1.35)) {
      say("the name states " + size_text(theirs.size) + " parameters, " + model.name + " has " + size_text(total));
      return ModelVerdict::different;
    }
  }
  std::string agree;
  if (!theirs.family.empty() && theirs.family == family) agree = "both " + family;
  if (theirs.size > 0) agree += (agree.empty() ? "" : ", ") + std::string("the same size");
  say(agree.empty() ? "the names cannot be compared; check that they are the same model"
                    : "different names, " + agree + "; check that they are the same model");
  return ModelVerdict::unsure;
}

BenchmarkMatch match_benchmark(const BenchmarkRun& bench, const Scenario& scenario) {
  BenchmarkMatch out;
  for (const PoolConfig& pool : scenario.cluster.pools) {
    check_model(bench.model, bench.model_key, "model", pool, out);
    // Lengths counted with another model's tokenizer are other lengths.
    if (bench.tokenizer != bench.model) check_model(bench.tokenizer, bench.tokenizer_key, "tokenizer", pool, out);
    if (!bench.engine.empty() && bench.engine != kernel_engine_family(pool.engine.preset)) {
      out.mismatches.push_back(bench.engine_key + ": the benchmark was served by " + bench.engine + ", pool " +
                               pool.name + " runs " + engine_text(pool));
    }
    if (bench.tp && *bench.tp != pool.deployment.tp) {
      out.mismatches.push_back("tp: the benchmark ran tensor parallel " + std::to_string(*bench.tp) + ", pool " +
                               pool.name + " has tp " + std::to_string(pool.deployment.tp));
    }
    if (bench.pp && *bench.pp != pool.deployment.pp) {
      out.mismatches.push_back("pp: the benchmark ran pipeline parallel " + std::to_string(*bench.pp) + ", pool " +
                               pool.name + " has pp " + std::to_string(pool.deployment.pp));
    }
  }
  return out;
}

}  // namespace servesim
