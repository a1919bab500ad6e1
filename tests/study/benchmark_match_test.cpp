// A benchmark file's model names against the scenario's model: the same checkpoint under
// its Hugging Face names, another family or size refused, the rest doubted, never guessed.
#include <catch2/catch.hpp>

#include <string>

#include "sim/scenario/model_loader.h"
#include "sim/study/benchmark_match.h"

namespace benchmark_match_test {

using namespace servesim;

namespace {

ModelVerdict verdict(const std::string& name, const std::string& model, std::string* why = nullptr) {
  return compare_model_name(name, load_model(model), why);
}

}  // namespace

TEST_CASE("benchmark match: a Hugging Face id and the model file's name are the same model", "[study][replay]") {
  CHECK(verdict("meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b") == ModelVerdict::same);
  CHECK(verdict("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b") == ModelVerdict::same);
  CHECK(verdict("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b") == ModelVerdict::same);
  CHECK(verdict("mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b") == ModelVerdict::same);
  CHECK(verdict("mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b") == ModelVerdict::same);
  CHECK(verdict("/models/Llama-2-70b-chat-hf/", "llama-2-70b") == ModelVerdict::same);
  CHECK(verdict("deepseek-ai/DeepSeek-V3-0324", "deepseek-v3") == ModelVerdict::same);
  // The source's id: the model file's own name (llama-4-scout) states no size.
  CHECK(verdict("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout") == ModelVerdict::same);
}

TEST_CASE("benchmark match: another size or family is another model", "[study][replay]") {
  std::string why;
  CHECK(verdict("meta-llama/Llama-3.1-70B-Instruct", "llama-3-8b", &why) == ModelVerdict::different);
  CHECK(why == "the names state 70B and 8B parameters");
  CHECK(verdict("Qwen/Qwen3-8B", "llama-3-8b", &why) == ModelVerdict::different);
  CHECK(why == "a qwen model against a llama model");
  CHECK(verdict("meta-llama/Llama-2-7b-hf", "llama-3-8b") == ModelVerdict::different);  // 7B against 8B
  // A model spec whose names state no size: the name's size against its parameter count
  // (Llama-3-8B: 8.03e9, docs/cost-model.md "Parameters and KV bytes").
  ModelSpec custom = load_model("llama-3-8b");
  custom.name = "house-model";
  custom.source = "config.json";
  CHECK(compare_model_name("meta-llama/Llama-3.1-70B-Instruct", custom, &why) == ModelVerdict::different);
  CHECK(why == "the name states 70B parameters, house-model has 8.03B");
  CHECK(compare_model_name("someorg/finetune-8B", custom, &why) == ModelVerdict::unsure);
}

TEST_CASE("benchmark match: names that neither match nor differ are doubted", "[study][replay]") {
  std::string why;
  // Llama 3.1 and Llama 3 at 8B share the architecture; the names cannot say so.
  CHECK(verdict("meta-llama/Llama-3.1-8B-Instruct", "llama-3-8b", &why) == ModelVerdict::unsure);
  CHECK(why == "different names, both llama, the same size; check that they are the same model");
  CHECK(verdict("my-finetune", "llama-3-8b", &why) == ModelVerdict::unsure);
  CHECK(why == "the names cannot be compared; check that they are the same model");
  CHECK(verdict("deepseek-ai/DeepSeek-R1", "deepseek-v3") == ModelVerdict::unsure);
}

}  // namespace benchmark_match_test
