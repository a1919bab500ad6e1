#include "sim/io/model_loader.h"

#include <filesystem>

#include "sim/core/errors.h"
#include "sim/io/hf_config_loader.h"
#include "sim/io/spec_yaml.h"

namespace servesim {

namespace {

const std::vector<std::string> kModelKeys = {
    "name",          "source",     "num_layers",        "hidden_size",
    "num_attention_heads", "num_kv_heads", "head_dim",  "intermediate_size",
    "vocab_size",    "gated_mlp",  "tied_embeddings",   "max_context_tokens"};

ModelSpec load_model_yaml(const std::string& path) {
  const YAML::Node doc = load_spec_yaml(path);
  const LoadContext ctx{path, {}};
  const Field root = root_field(ctx, doc);
  root.expect_map(kModelKeys);

  ModelSpec m;
  m.name = root.has("name") ? root.require("name").as_string() : spec_stem(path);
  if (auto f = root.get("source")) m.source = f->as_string();
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
  if (auto f = root.get("head_dim")) {
    m.head_dim = positive_count(*f);
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
  m.max_context_tokens = root.require("max_context_tokens").int_at_least(1);
  return m;
}

}  // namespace

ModelSpec load_model(const std::string& name_or_path) {
  const std::string path = resolve_spec_path("models", "model", name_or_path);
  if (std::filesystem::path(path).extension() == ".json") return load_hf_config(path);
  return load_model_yaml(path);
}

}  // namespace servesim
