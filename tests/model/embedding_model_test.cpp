// The bundled embedding model (models/e5-mistral-7b-instruct.yaml): Mistral-7B-v0.1's
// shape without a language-model head, and prefill-only requests on it.
#include <catch2/catch.hpp>

#include "sim/scenario/model_loader.h"

namespace embedding_model_test {

using namespace servesim;

TEST_CASE("embedding model: e5-mistral-7b-instruct has Mistral-7B's shape and no LM head", "[model]") {
  const ModelSpec e5 = load_model("e5-mistral-7b-instruct");
  const ModelSpec mistral = load_model("mistral-7b");
  CHECK(e5.name == "e5-mistral-7b-instruct");
  CHECK(e5.source.find("huggingface.co/intfloat/e5-mistral-7b-instruct") != std::string::npos);
  CHECK(e5.num_layers == 32);
  CHECK(e5.hidden_size == 4096);
  CHECK(e5.num_attention_heads == 32);
  CHECK(e5.num_kv_heads == 8);
  CHECK(e5.head_dim == 128);
  CHECK(e5.intermediate_size == 14336);
  CHECK(e5.vocab_size == 32000);
  CHECK(e5.max_context_tokens == 32768);
  CHECK(e5.tied_embeddings);
  // Per layer: q and o 4096 x 4096 each, k and v 4096 x 1024 each, the gated MLP
  // 3 x 4096 x 14336, two RMSNorms of 4096: 218,112,000; x 32 = 6,979,584,000; plus the
  // 32000 x 4096 embedding table (131,072,000) and the final norm (4096): 7,110,660,096,
  // the 7.11B of the published checkpoint. Mistral-7B adds its LM head, another 131,072,000.
  CHECK(e5.parameter_count() == 7110660096.0);
  CHECK(mistral.parameter_count() - e5.parameter_count() == 131072000.0);
}

}  // namespace embedding_model_test
