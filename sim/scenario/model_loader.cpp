#include "sim/scenario/model_loader.h"

#include <filesystem>
#include <optional>
#include <utility>

#include "sim/core/errors.h"
#include "sim/scenario/hf_config_loader.h"
#include "sim/scenario/spec_yaml.h"

namespace servesim {

namespace {

const std::vector<std::string> kModelKeys = {
    "name",          "source",     "num_layers",        "hidden_size",
    "num_attention_heads", "num_kv_heads", "head_dim",  "intermediate_size",
    "vocab_size",    "gated_mlp",  "tied_embeddings",   "max_context_tokens",
    "attention_bias",
    // mixture of experts
    "num_experts", "experts_per_token", "moe_intermediate_size", "num_shared_experts",
    "first_dense_layers", "moe_layer_step",
    // multi-head latent attention
    "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
    // chunked local attention (Llama-4)
    "attention_chunk_size", "no_rope_layer_interval",
    // vision tower (multimodal models)
    "vision_params", "vision_image_tokens"};

// num_experts turns the MLP into routed experts; experts_per_token and
// moe_intermediate_size are then required.
void read_moe(const Field& root, ModelSpec& m) {
  const auto e = root.get("num_experts");
  for (const char* key : {"experts_per_token", "moe_intermediate_size", "num_shared_experts",
                          "first_dense_layers", "moe_layer_step"}) {
    if (!e && root.has(key)) root.get(key)->fail("is a mixture-of-experts figure; give num_experts too");
  }
  if (!e) return;
  m.num_experts = positive_count(*e);
  const Field k = root.require("experts_per_token");
  m.experts_per_token = positive_count(k);
  if (m.experts_per_token > m.num_experts) {
    k.fail("must be at most num_experts " + std::to_string(m.num_experts));
  }
  m.moe_intermediate_size = positive_count(root.require("moe_intermediate_size"));
  if (auto f = root.get("num_shared_experts")) m.num_shared_experts = static_cast<int>(f->int_at_least(0));
  if (auto f = root.get("first_dense_layers")) {
    m.first_dense_layers = static_cast<int>(f->int_at_least(0));
    if (m.first_dense_layers >= m.num_layers) {
      f->fail("must be below num_layers " + std::to_string(m.num_layers));
    }
  }
  if (auto f = root.get("moe_layer_step")) {
    // Every moe_layer_step-th layer after the dense first ones is MoE (Llama-4 Maverick: 2).
    m.moe_layer_step = positive_count(*f);
    if (m.moe_layers() < 1) {
      f->fail("leaves no MoE layer among the " + std::to_string(m.num_layers - m.first_dense_layers) +
              " layers after the dense ones");
    }
  }
}

// kv_lora_rank turns attention into MLA; the three head dims are then required.
void read_mla(const Field& root, ModelSpec& m) {
  const auto r = root.get("kv_lora_rank");
  for (const char* key : {"q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}) {
    if (!r && root.has(key)) root.get(key)->fail("is a latent-attention figure; give kv_lora_rank too");
  }
  if (!r) return;
  m.kv_lora_rank = positive_count(*r);
  if (auto f = root.get("q_lora_rank")) m.q_lora_rank = static_cast<int>(f->int_at_least(0));
  m.qk_nope_head_dim = positive_count(root.require("qk_nope_head_dim"));
  m.qk_rope_head_dim = positive_count(root.require("qk_rope_head_dim"));
  m.v_head_dim = positive_count(root.require("v_head_dim"));
}

// Two keys that mean something only together: none when neither is given, both when both
// are. One alone fails on it: the second with `second_alone`, the first with `first_alone`.
std::optional<std::pair<Field, Field>> both_or_neither(const Field& root, const char* first, const char* second,
                                                       const char* second_alone, const char* first_alone) {
  const auto a = root.get(first);
  const auto b = root.get(second);
  if (!a && b) b->fail(second_alone);
  if (!a) return std::nullopt;
  if (!b) a->fail(first_alone);
  return std::pair{*a, *b};
}

// attention_chunk_size makes the RoPE layers chunked local; no_rope_layer_interval says
// which layers are not (every interval-th, full attention). Both or neither.
void read_chunked_attention(const Field& root, ModelSpec& m) {
  const auto both = both_or_neither(root, "attention_chunk_size", "no_rope_layer_interval",
                                    "says which layers keep full attention; give attention_chunk_size too",
                                    "needs no_rope_layer_interval too (every interval-th layer keeps full attention)");
  if (!both) return;
  const auto& [c, n] = *both;
  m.attention_chunk_size = positive_count(c);
  m.no_rope_layer_interval = positive_count(n);
  if (m.no_rope_layer_interval > m.num_layers) {
    n.fail("leaves no full-attention layer among the " + std::to_string(m.num_layers) + " layers");
  }
}

// vision_params (the tower the engine loads) and vision_image_tokens (the embeddings of
// its largest image) come together.
void read_vision(const Field& root, ModelSpec& m) {
  const auto both = both_or_neither(root, "vision_params", "vision_image_tokens",
                                    "is a vision-tower figure; give vision_params too",
                                    "needs vision_image_tokens too (the embeddings of the largest image)");
  if (!both) return;
  const auto& [p, t] = *both;
  m.vision_params = static_cast<double>(p.int_at_least(1));
  m.vision_image_tokens = positive_count(t);
}

ModelSpec load_model_yaml(const std::string& path) {
  const SpecFile file(path, kModelKeys);
  const Field& root = file.root();
  ModelSpec m = file.named_spec<ModelSpec>();
  m.num_layers = positive_count(root.require("num_layers"));
  m.hidden_size = positive_count(root.require("hidden_size"));
  const Field heads = root.require("num_attention_heads");
  m.num_attention_heads = positive_count(heads);
  m.num_kv_heads = m.num_attention_heads;
  if (auto f = root.get("num_kv_heads")) {
    m.num_kv_heads = positive_count(*f);
    if (m.num_attention_heads % m.num_kv_heads != 0) {
      f->fail("must divide num_attention_heads " + std::to_string(m.num_attention_heads));
    }
  }
  read_mla(root, m);
  if (auto f = root.get("head_dim")) {
    m.head_dim = positive_count(*f);
  } else if (m.is_mla()) {
    m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;  // the query-key head width
  } else if (m.hidden_size % m.num_attention_heads != 0) {
    heads.fail("does not divide hidden_size " + std::to_string(m.hidden_size) +
               "; give head_dim explicitly");
  } else {
    m.head_dim = m.hidden_size / m.num_attention_heads;
  }
  m.intermediate_size = positive_count(root.require("intermediate_size"));
  m.vocab_size = positive_count(root.require("vocab_size"));
  if (auto f = root.get("gated_mlp")) m.gated_mlp = f->as_bool();
  if (auto f = root.get("tied_embeddings")) m.tied_embeddings = f->as_bool();
  if (auto f = root.get("attention_bias")) m.attention_bias = f->as_bool();
  m.max_context_tokens = root.require("max_context_tokens").int_at_least(1);
  read_moe(root, m);
  read_chunked_attention(root, m);
  read_vision(root, m);
  return m;
}

}  // namespace

ModelSpec load_model(const std::string& name_or_path) {
  return load_model_file(resolve_spec_path("models", "model", name_or_path));
}

ModelSpec load_model_file(const std::string& path) {
  if (std::filesystem::path(path).extension() == ".json") return load_hf_config(path);
  return load_model_yaml(path);
}

}  // namespace servesim
