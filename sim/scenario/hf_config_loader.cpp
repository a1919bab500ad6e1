#include "sim/scenario/hf_config_loader.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"

namespace servesim {

namespace {

using nlohmann::json;

// nlohmann::json keeps no positions, so an error's line is found by looking for the
// quoted key in the text (the first occurrence; 0 if absent).
int line_of_key(const std::string& text, const std::string& key) {
  const std::size_t at = text.find("\"" + key + "\"");
  if (at == std::string::npos) return 0;
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

class ConfigJson {
 public:
  ConfigJson(std::string path, std::string text, const json& root)
      : path_(std::move(path)), text_(std::move(text)), root_(root) {}

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw ConfigError(path_, line_of_key(text_, key), key, message);
  }

  // A JSON null counts as absent: some configs write "head_dim": null.
  const json* find(const std::string& key) const {
    const auto it = root_.find(key);
    return it == root_.end() || it->is_null() ? nullptr : &*it;
  }

  int count(const std::string& key) const {
    const json* v = find(key);
    if (v == nullptr) {
      fail(key, "missing required field '" + key + "' (a " + style_ + " config.json has it)");
    }
    return count_value(key, *v);
  }

  int count_or(const std::string& key, int fallback) const {
    const json* v = find(key);
    return v == nullptr ? fallback : count_value(key, *v);
  }

  // Which family the config is read as, for "missing field" messages.
  void set_style(std::string style) { style_ = std::move(style); }

  std::string string_or(const std::string& key, const std::string& fallback) const {
    const json* v = find(key);
    return v != nullptr && v->is_string() ? v->get<std::string>() : fallback;
  }

  // Whole numbers that may be 0 (q_lora_rank, first_k_dense_replace); null reads as 0.
  int count_or_zero(const std::string& key) const {
    const json* v = find(key);
    if (v == nullptr) return 0;
    if (v->is_number() && v->get<double>() == 0) return 0;
    return count_value(key, *v);
  }

  bool flag_or(const std::string& key, bool fallback) const {
    const json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) fail(key, "expected true or false, got " + v->dump());
    return v->get<bool>();
  }

 private:
  int count_value(const std::string& key, const json& v) const {
    if (!v.is_number()) fail(key, "expected a whole number, got " + v.dump());
    const double d = v.get<double>();
    if (std::floor(d) != d || d < 1 || d > INT_MAX) {
      fail(key, "expected a positive whole number, got " + v.dump());
    }
    return static_cast<int>(d);
  }

  std::string path_;
  std::string text_;
  std::string style_ = "Llama-style";
  const json& root_;
};

std::string model_name(const json& root, const std::string& path) {
  const auto it = root.find("_name_or_path");
  if (it != root.end() && it->is_string() && !it->get<std::string>().empty()) {
    return std::filesystem::path(it->get<std::string>()).filename().string();
  }
  // A downloaded model is a folder holding config.json; the folder names the model. Any
  // other file names it itself. The folder is the file's real one, whatever the path as
  // typed ("config.json", "../config.json"), so the name never depends on where servesim runs.
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(fs::absolute(path, ec), ec);
  const std::string folder = file.parent_path().filename().string();
  if (file.filename() == "config.json" && !folder.empty()) return folder;
  return fs::path(path).stem().string();
}

// Mixtral: num_local_experts experts of width intermediate_size in every layer.
// DeepSeek-V2/V3: n_routed_experts of moe_intermediate_size plus n_shared_experts, in
// every layer from first_k_dense_replace on (the first ones keep a dense MLP of
// intermediate_size), when moe_layer_freq is 1.
void read_experts(const ConfigJson& cfg, ModelSpec& m) {
  if (cfg.find("num_local_experts") != nullptr) {
    m.num_experts = cfg.count("num_local_experts");
    m.experts_per_token = cfg.count("num_experts_per_tok");
    m.moe_intermediate_size = m.intermediate_size;
  } else if (cfg.find("n_routed_experts") != nullptr) {
    m.num_experts = cfg.count("n_routed_experts");
    m.experts_per_token = cfg.count("num_experts_per_tok");
    m.moe_intermediate_size = cfg.count("moe_intermediate_size");
    m.num_shared_experts = cfg.count_or_zero("n_shared_experts");
    m.first_dense_layers = cfg.count_or_zero("first_k_dense_replace");
    if (cfg.count_or("moe_layer_freq", 1) != 1) {
      cfg.fail("moe_layer_freq", "only 1 (every layer after the dense ones is MoE) is supported");
    }
    if (m.first_dense_layers >= m.num_layers) {
      cfg.fail("first_k_dense_replace", "must be below num_hidden_layers " + std::to_string(m.num_layers));
    }
  } else {
    return;
  }
  if (m.experts_per_token > m.num_experts) {
    cfg.fail("num_experts_per_tok", "must be at most the " + std::to_string(m.num_experts) + " experts");
  }
}

// Llama-4 (Scout, Maverick): num_local_experts routed experts of width intermediate_size
// plus one shared expert of that width in every MoE layer; the other layers are dense
// with an MLP of intermediate_size_mlp. Layer i is MoE when (i + 1) is a multiple of
// interleave_moe_layer_step (transformers' Llama4TextConfig), which an explicit
// moe_layers list must agree with.
void read_llama4_experts(const ConfigJson& cfg, ModelSpec& m) {
  m.intermediate_size = cfg.count("intermediate_size_mlp");
  m.moe_intermediate_size = cfg.count("intermediate_size");
  m.num_experts = cfg.count("num_local_experts");
  m.experts_per_token = cfg.count("num_experts_per_tok");
  m.num_shared_experts = 1;  // Llama4TextMoe's shared_expert
  m.moe_layer_step = cfg.count_or("interleave_moe_layer_step", 1);
  if (m.moe_layer_step > m.num_layers) {
    cfg.fail("interleave_moe_layer_step", "leaves no MoE layer among the " +
                                              std::to_string(m.num_layers) + " layers");
  }
  if (m.experts_per_token > m.num_experts) {
    cfg.fail("num_experts_per_tok", "must be at most the " + std::to_string(m.num_experts) + " experts");
  }
  if (const json* list = cfg.find("moe_layers")) {
    std::vector<int> expected;
    for (int i = 0; i < m.num_layers; ++i) {
      if (m.is_moe_layer(i)) expected.push_back(i);
    }
    bool same = list->is_array() && list->size() == expected.size();
    for (std::size_t i = 0; same && i < expected.size(); ++i) {
      same = (*list)[i].is_number_integer() && (*list)[i].get<long long>() == expected[i];
    }
    if (!same) {
      cfg.fail("moe_layers", "must list every interleave_moe_layer_step-th layer (" +
                                 std::to_string(m.moe_layer_step) +
                                 "): other MoE layer placements are not supported");
    }
  }
}

// Llama-4's chunked local attention (transformers' Llama4TextConfig): attention_chunk_size
// (default 8192) on the RoPE layers; no_rope_layers[i] == 0 marks the NoPE layers, which
// keep full attention (vLLM's Llama4Attention: nope = no_rope_layers[layer_idx] == 0). An
// absent or empty list means the default, every no_rope_layer_interval-th layer (4) NoPE;
// an explicit list must follow that pattern.
void read_llama4_attention(const ConfigJson& cfg, ModelSpec& m) {
  m.attention_chunk_size = cfg.count_or("attention_chunk_size", 8192);
  m.no_rope_layer_interval = cfg.count_or("no_rope_layer_interval", 4);
  if (m.no_rope_layer_interval > m.num_layers) {
    cfg.fail("no_rope_layer_interval", "leaves no full-attention layer among the " +
                                           std::to_string(m.num_layers) + " layers");
  }
  const json* list = cfg.find("no_rope_layers");
  if (list == nullptr || (list->is_array() && list->empty())) return;
  bool same = list->is_array() && static_cast<int>(list->size()) == m.num_layers;
  for (int i = 0; same && i < m.num_layers; ++i) {
    const json& v = (*list)[static_cast<std::size_t>(i)];
    same = v.is_number_integer() && (v.get<long long>() != 0) == m.is_chunked_local_layer(i);
  }
  if (!same) {
    cfg.fail("no_rope_layers", "must mark every no_rope_layer_interval-th layer (" +
                                   std::to_string(m.no_rope_layer_interval) +
                                   ") with 0 and the others with 1: other placements are not supported");
  }
}

// Llama-4's vision tower as vLLM builds it (vllm/model_executor/models/mllama4.py):
// Llama4VisionModel = patch embedding (a bias-free linear of channels x patch^2 ->
// hidden), class embedding (hidden), positional embedding ((image/patch)^2 + 1 rows),
// pre and post LayerNorms, num_hidden_layers encoder layers (QKV and o projections with
// biases, an MLP hidden -> intermediate -> hidden with biases, two LayerNorms) and the
// pixel-shuffle adapter (an MLP intermediate -> projector_input_dim ->
// projector_output_dim, biased when multi_modal_projector_bias); then
// Llama4MultiModalProjector (vision_output_dim -> text hidden_size, no bias). The largest
// image (Mllama4ProcessingInfo.get_image_size_with_most_features) is max_patches tiles
// plus the global one, each (image/patch)^2 / round(1 / pixel_shuffle_ratio^2)
// embeddings (get_patch_per_chunk); max_patches is the image processor's 16
// (transformers' Llama4ImageProcessorFast), not in config.json.
void read_llama4_vision(const ConfigJson& vision, int text_hidden, ModelSpec& m) {
  constexpr double kMaxPatches = 16;  // Llama4ImageProcessorFast.max_patches
  const double h = vision.count("hidden_size");
  const double inter = vision.count("intermediate_size");
  const double layers = vision.count("num_hidden_layers");
  const double channels = vision.count("num_channels");
  const int patch = vision.count("patch_size");
  const int image = vision.count("image_size");
  const double proj_in = vision.count("projector_input_dim");
  const double proj_out = vision.count("projector_output_dim");
  const double out = vision.count("vision_output_dim");
  const double adapter_bias = vision.flag_or("multi_modal_projector_bias", false) ? 1.0 : 0.0;
  if (image % patch != 0) vision.fail("image_size", "must be a multiple of patch_size " + std::to_string(patch));
  const double grid = static_cast<double>(image / patch) * (image / patch);
  const double layer = (4 * h * h + 4 * h) + (2 * h * inter + inter + h) + 4 * h;
  m.vision_params = channels * patch * patch * h + h + (grid + 1) * h + 4 * h + layers * layer +
                    (inter * proj_in + proj_in * proj_out + adapter_bias * (proj_in + proj_out)) +
                    out * text_hidden;
  const json* ratio = vision.find("pixel_shuffle_ratio");
  if (ratio == nullptr || !ratio->is_number() || !(ratio->get<double>() > 0) || ratio->get<double>() > 1) {
    vision.fail("pixel_shuffle_ratio", "expected a number in (0, 1]");
  }
  const double r = ratio->get<double>();
  const double per_tile = std::floor(grid / std::round(1.0 / (r * r)));
  m.vision_image_tokens = static_cast<int>((kMaxPatches + 1) * per_tile);
}

// DeepSeek's MLA: kv_lora_rank, the query/key head split and v_head_dim are required;
// q_lora_rank may be null (V2-Lite projects queries directly).
void read_latent_attention(const ConfigJson& cfg, ModelSpec& m) {
  if (cfg.find("kv_lora_rank") == nullptr) return;
  m.kv_lora_rank = cfg.count("kv_lora_rank");
  m.q_lora_rank = cfg.count_or_zero("q_lora_rank");
  m.qk_nope_head_dim = cfg.count("qk_nope_head_dim");
  m.qk_rope_head_dim = cfg.count("qk_rope_head_dim");
  m.v_head_dim = cfg.count("v_head_dim");
}

// Qwen3-MoE (transformers' Qwen3MoeConfig): num_experts routed experts of
// moe_intermediate_size, no shared expert; layer i is MoE when (i + 1) is a multiple of
// decoder_sparse_step and i is not in mlp_only_layers (Qwen3MoeDecoderLayer). Every
// released Qwen3-MoE checkpoint has step 1 and no dense layers.
void read_qwen3_experts(const ConfigJson& cfg, ModelSpec& m) {
  m.num_experts = cfg.count("num_experts");
  m.experts_per_token = cfg.count("num_experts_per_tok");
  m.moe_intermediate_size = cfg.count("moe_intermediate_size");
  m.moe_layer_step = cfg.count_or("decoder_sparse_step", 1);
  if (m.moe_layer_step > m.num_layers) {
    cfg.fail("decoder_sparse_step", "leaves no MoE layer among the " + std::to_string(m.num_layers) + " layers");
  }
  if (const json* dense = cfg.find("mlp_only_layers"); dense != nullptr && !(dense->is_array() && dense->empty())) {
    cfg.fail("mlp_only_layers", "dense layers listed by index are not supported (only an empty list)");
  }
  if (m.experts_per_token > m.num_experts) {
    cfg.fail("num_experts_per_tok", "must be at most the " + std::to_string(m.num_experts) + " experts");
  }
}

// The config.json families this reader prices; any other model_type is refused rather
// than read as Llama (Gemma-2's soft-capping and alternating windows, say, would be lost).
const std::vector<std::string> kModelTypes = {"llama",       "mistral",     "qwen2",       "qwen3",
                                              "qwen3_moe",   "mixtral",     "deepseek_v2", "deepseek_v3",
                                              "llama4",      "llama4_text"};

bool supported_type(const std::string& type) {
  return std::find(kModelTypes.begin(), kModelTypes.end(), type) != kModelTypes.end();
}

std::string type_of(const json& object) {
  const auto it = object.find("model_type");
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The family the config says it is: the top level's model_type, or for a wrapper of a
// language model (text_config) the text config's when only that one is supported. ""
// when neither says (the family then follows from the keys, as for hand-written configs).
std::string model_family(const ConfigJson& top, const json& doc, const json& root) {
  const auto it = doc.find("model_type");
  if (it != doc.end() && !it->is_null() && !it->is_string()) {
    top.fail("model_type", "expected a string, got " + it->dump());
  }
  const std::string outer = type_of(doc);
  const std::string inner = &root == &doc ? std::string() : type_of(root);
  if (outer.empty() && inner.empty()) return {};
  if (supported_type(outer)) return outer;
  if (supported_type(inner)) return inner;
  std::string list;
  for (const std::string& t : kModelTypes) list += (list.empty() ? "" : ", ") + t;
  const std::string type = outer.empty() ? inner : outer;
  top.fail("model_type", "model_type '" + type + "' is not supported (supported: " + list +
                             "); its architecture would be priced wrongly as any of these");
}

std::string read_config_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, 0, "", "cannot read the file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The document, or an error at the line of the first bad byte.
json parse_config_json(const std::string& path, const std::string& text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based; the newlines before it give the line users can find.
    const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    throw ConfigError(path, line, "", std::string("not valid JSON: ") + e.what());
  } catch (const json::exception& e) {  // out_of_range for a number like 1e400
    throw ConfigError(path, 0, "", std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) throw ConfigError(path, 0, "", "expected a JSON object at the top");
  return doc;
}

// The style a missing key's error names, after the family or the experts' keys; a
// Qwen2-MoE config is refused.
void set_family_style(ConfigJson& cfg, const std::string& family) {
  const bool llama4 = family == "llama4" || family == "llama4_text";
  const bool qwen3_moe = family == "qwen3_moe";
  // Qwen2-MoE also spells its experts num_experts, with a gated shared expert of its own
  // width that this reader does not model.
  if (cfg.find("num_experts") != nullptr && !qwen3_moe) {
    cfg.fail("num_experts", "Qwen2-MoE style configs are not supported; mixture-of-experts "
                            "configs are read in the Qwen3-MoE (model_type qwen3_moe), Mixtral "
                            "(num_local_experts) and DeepSeek (n_routed_experts) styles");
  }
  if (qwen3_moe) {
    cfg.set_style("Qwen3-MoE-style");
  } else if (llama4) {
    cfg.set_style("Llama-4-style");
  } else if (cfg.find("n_routed_experts") != nullptr || cfg.find("kv_lora_rank") != nullptr) {
    cfg.set_style("DeepSeek-style");
  } else if (cfg.find("num_local_experts") != nullptr) {
    cfg.set_style("Mixtral-style");
  }
}

// The keys every family shares: sizes, context, embeddings, biases.
void read_common_shape(const ConfigJson& cfg, ModelSpec& m) {
  m.hidden_size = cfg.count("hidden_size");
  m.num_layers = cfg.count("num_hidden_layers");
  m.num_attention_heads = cfg.count("num_attention_heads");
  // Configs written before GQA leave it out: every head has its own K and V.
  m.num_kv_heads = cfg.count_or("num_key_value_heads", m.num_attention_heads);
  m.intermediate_size = cfg.count("intermediate_size");
  m.vocab_size = cfg.count("vocab_size");
  m.max_context_tokens = cfg.count("max_position_embeddings");
  m.tied_embeddings = cfg.flag_or("tie_word_embeddings", false);
  m.gated_mlp = true;  // Llama, Mistral, Qwen2, Yi, Mixtral, DeepSeek, Llama-4: SwiGLU
  // Qwen2 always has QKV biases (its config has no key for them); Llama-style configs
  // may say attention_bias.
  m.attention_bias = cfg.flag_or("attention_bias", cfg.string_or("model_type", "") == "qwen2");
}

// head_dim as given, or MLA's query/key width, or hidden_size / heads; then the KV heads
// must divide the query heads.
void read_head_dim(const ConfigJson& cfg, ModelSpec& m) {
  if (cfg.find("head_dim") != nullptr && !m.is_mla()) {
    m.head_dim = cfg.count("head_dim");
  } else if (m.is_mla()) {
    m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  } else if (m.hidden_size % m.num_attention_heads != 0) {
    cfg.fail("num_attention_heads", "does not divide hidden_size " + std::to_string(m.hidden_size) +
                                        " and no head_dim is given");
  } else {
    m.head_dim = m.hidden_size / m.num_attention_heads;
  }
  if (m.num_attention_heads % m.num_kv_heads != 0) {
    cfg.fail("num_key_value_heads", "must divide num_attention_heads " +
                                        std::to_string(m.num_attention_heads));
  }
}

}  // namespace

ModelSpec load_hf_config(const std::string& path) {
  const std::string text = read_config_text(path);
  json doc = parse_config_json(path, text);
  // Multimodal configs nest the language model under text_config.
  const json& root = !doc.contains("hidden_size") && doc.contains("text_config") &&
                             doc["text_config"].is_object()
                         ? doc["text_config"]
                         : doc;
  ConfigJson cfg(path, text, root);

  const std::string family = model_family(ConfigJson(path, text, doc), doc, root);
  const bool llama4 = family == "llama4" || family == "llama4_text";
  const bool qwen3_moe = family == "qwen3_moe";
  set_family_style(cfg, family);

  ModelSpec m;
  m.name = model_name(doc, path);
  m.source = "Hugging Face config.json: " + path;
  read_common_shape(cfg, m);
  if (llama4) {
    read_llama4_experts(cfg, m);
    read_llama4_attention(cfg, m);
    if (&root != &doc && doc.contains("vision_config") && doc["vision_config"].is_object()) {
      ConfigJson vision(path, text, doc["vision_config"]);
      vision.set_style("Llama-4 vision_config");
      read_llama4_vision(vision, m.hidden_size, m);
    }
  } else if (qwen3_moe) {
    read_qwen3_experts(cfg, m);
  } else {
    read_experts(cfg, m);
    read_latent_attention(cfg, m);
  }
  read_head_dim(cfg, m);
  return m;
}

}  // namespace servesim
