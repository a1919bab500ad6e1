#include "sim/engine/memory_plan.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/engine/kv_cache_groups.h"
#include "sim/engine/lora_slots.h"
#include "sim/model/shard.h"
#include "sim/core/units.h"

namespace servesim {

namespace {

// Memory that is not weights, KV or per-token activations but is held all the same: the
// CUDA context and library workspaces (cuBLAS, NCCL), the CUDA-graph pool and the
// sampler's logits. vLLM reports this as "non_torch_memory" plus part of the profiled
// peak; 1 GiB is a round figure of that order for 7B-70B models, not a measurement.
constexpr double kFixedReserveBytes = 1.0 * kBytesPerGiB;

}  // namespace

// The activation reserve follows vLLM's profiling run (vllm/v1/worker/gpu_worker.py
// determine_available_memory): vLLM runs one forward pass over max_num_batched_tokens
// dummy tokens and keeps its peak memory out of the KV cache. At the peak of that pass
// (inside the MLP) live: the hidden states and residual (2 x hidden per token), the
// gate/up output (2 x ffn/tp) and the activation output (1 x ffn/tp), all in the
// activation format.
namespace {

// Bytes per token of the forward pass's peak (the comment above), without a fixed part.
double forward_activation_bytes_per_token(const ModelSpec& model, const Deployment& dep) {
  const ShardShape s = shard_shape(model, dep);
  // A MoE layer's peak holds the gate/up and activation outputs of the token's k routed
  // experts and of the shared experts: 3 x (k x expert width x ep + shared width) per GPU
  // (a GPU computes M*k/ep token-expert rows of width moe_intermediate*ep/tp).
  double mlp_width = s.dense_layers > 0 || !model.is_moe() ? s.intermediate : 0.0;
  if (model.is_moe()) {
    const double moe_width = model.experts_per_token * s.expert_intermediate / dep.ep + s.shared_intermediate;
    mlp_width = std::max(mlp_width, moe_width);
  }
  return (2.0 * model.hidden_size + 3.0 * mlp_width) * bytes_per_element(dep.activations);
}

// The vision tower's weights on one GPU. vLLM builds Llama4VisionModel and
// Llama4MultiModalProjector with quant_config None, so they stay bf16 whatever the
// checkpoint's format, and splits their linear layers over tp (ColumnParallelLinear /
// RowParallelLinear unless the encoder runs data-parallel) (vllm/model_executor/models/
// mllama4.py, Llama4ForConditionalGeneration.__init__). The ~1M replicated parameters
// (positional and class embeddings, LayerNorms, row-parallel biases) count as split too.
// With pp > 1 the first stage holds the tower; it is counted on the busiest one.
double vision_weight_bytes_per_gpu(const ModelSpec& model, const Deployment& dep) {
  return model.vision_params * 2.0 / dep.tp;
}

// The dummy images' encoder outputs vLLM's profile run holds through the text forward
// pass (GPUModelRunner.profile_run: embed_multimodal over max_items_per_batch images of
// the largest size, kept in encoder_cache until the text dummy run and the sampler run
// are done). MultiModalBudget: the encoder budget is max(max_num_batched_tokens, tokens
// of one image) (compute_mm_encoder_budget; max_num_encoder_input_tokens and
// encoder_cache_size default to max_num_batched_tokens), items = budget // tokens of one
// image, at least 1 (also at most max_num_seqs x the images a prompt may carry, which
// Llama-4 does not limit). Each output row is hidden_size wide in the
// activation format; every TP rank holds them all (the projector gathers its output).
// The encoder's own forward peak is not modelled.
double encoder_outputs_bytes(const ModelSpec& model, const Deployment& dep, const EngineConfig& engine,
                             std::int64_t* images) {
  *images = 0;
  if (!model.has_vision() || model.vision_image_tokens < 1) return 0.0;
  const std::int64_t per_image = model.vision_image_tokens;
  const std::int64_t budget = std::max<std::int64_t>(engine.max_batched_tokens, per_image);
  *images = std::max<std::int64_t>(1, budget / per_image);
  return static_cast<double>(*images * per_image) * model.hidden_size * bytes_per_element(dep.activations);
}

}  // namespace

MemoryPlan plan_memory(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                       double gpu_memory_utilization, std::int64_t max_batched_tokens) {
  const ShardShape s = shard_shape(model, dep);
  MemoryPlan plan;
  plan.vision_weight_bytes_per_gpu = vision_weight_bytes_per_gpu(model, dep);
  plan.weight_bytes_per_gpu = weight_bytes_per_gpu(model, dep) + plan.vision_weight_bytes_per_gpu;
  const double per_token_activation = forward_activation_bytes_per_token(model, dep);
  plan.activation_reserve_bytes_per_gpu =
      kFixedReserveBytes + static_cast<double>(max_batched_tokens) * per_token_activation;
  plan.kv_bytes_per_token_per_gpu =
      s.layers * kv_elements_per_token_layer(model, s) * bytes_per_element(dep.kv);

  const double usable = hw.memory_bytes * gpu_memory_utilization;
  const double kv_bytes = usable - plan.weight_bytes_per_gpu - plan.activation_reserve_bytes_per_gpu;
  plan.kv_bytes_per_gpu = std::max(kv_bytes, 0.0);
  plan.fraction = gpu_memory_utilization;
  plan.fits = kv_bytes > 0 && plan.kv_bytes_per_token_per_gpu > 0;
  plan.kv_capacity_tokens =
      plan.fits ? static_cast<std::int64_t>(std::floor(kv_bytes / plan.kv_bytes_per_token_per_gpu)) : 0;

  std::ostringstream why;
  why.precision(4);
  why << "per GPU: " << hw.memory_bytes / kBytesPerGiB << " GiB x " << gpu_memory_utilization
      << " utilisation = " << usable / kBytesPerGiB << " GiB usable; weights "
      << plan.weight_bytes_per_gpu / kBytesPerGiB << " GiB (" << model.name << ", tp=" << dep.tp
      << " pp=" << dep.pp << (dep.ep > 1 ? " ep=" + std::to_string(dep.ep) : std::string()) << ", " << dtype_name(dep.weights) << "); activation reserve "
      << plan.activation_reserve_bytes_per_gpu / kBytesPerGiB << " GiB (1 GiB + " << max_batched_tokens
      << " batched tokens); KV cache " << kv_bytes / kBytesPerGiB << " GiB at "
      << plan.kv_bytes_per_token_per_gpu / 1024.0 << " KiB/token = " << plan.kv_capacity_tokens
      << " tokens";
  if (!plan.fits) why << " (does not fit: weights and reserve exceed usable memory)";
  plan.explanation = why.str();
  return plan;
}

double sglang_default_mem_fraction(double memory_bytes, std::int64_t chunked_prefill_tokens,
                                   int cuda_graph_max_batch, int tp, int pp) {
  // python/sglang/srt/server_args.py, ServerArgs._handle_gpu_memory_settings (sglang
  // v0.5.x): every figure below is in MiB, as there.
  const double gpu_mem = memory_bytes / (1024.0 * 1024.0);
  double reserved = 512;  // "Constant meta data (e.g., from attention backend)"
  if (chunked_prefill_tokens > 0)  // "For activation during large prefill"
    reserved += static_cast<double>(std::max<std::int64_t>(chunked_prefill_tokens, 2048)) * 1.5;
  reserved += cuda_graph_max_batch * 2.0;    // "For cuda graphs"
  reserved += tp * pp / 8.0 * 1024;          // "Some adjustments for large parallel size"
  if (gpu_mem > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024);
  return std::round((gpu_mem - reserved) / gpu_mem * 1000.0) / 1000.0;
}

namespace {

// The start of every engine rule's explanation: the GPU's memory and the weights on it.
void explain_weights_line(std::ostream& why, const ModelSpec& model, const Deployment& dep, const MemoryPlan& plan,
                          double total) {
  why << "per GPU: " << total / kBytesPerGiB << " GiB; weights " << plan.weight_bytes_per_gpu / kBytesPerGiB << " GiB ("
      << model.name << ", tp=" << dep.tp << " pp=" << dep.pp
      << (dep.ep > 1 ? " ep=" + std::to_string(dep.ep) : std::string()) << ", " << dtype_name(dep.weights);
  if (model.has_vision()) why << ", vision tower " << plan.vision_weight_bytes_per_gpu / kBytesPerGiB << " GiB bf16 of it";
  why << "); ";
}

// vllm/v1/worker/gpu_worker.py, Worker.determine_available_memory (vLLM 0.14):
// available = requested_memory - non_kv_cache_memory, requested_memory = total x
// gpu_memory_utilization, non_kv_cache_memory = weights + torch_peak_increase +
// non_torch_increase of the profile run (vllm/utils/mem_utils.py memory_profiling).
// CUDA-graph memory is not subtracted: its estimate is opt-in there
// (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, off by default; vllm PR #30515), and
// the graphs are captured after the KV cache, out of the (1 - utilisation) headroom.
// non_torch_increase (cuBLAS/NCCL workspaces allocated after the baseline snapshot)
// has no figure in the source: 0 here.
// The profile run (GPUModelRunner.profile_run) is a forward pass over
// max_num_batched_tokens, then _dummy_sampler_run over the last token of
// min(max_num_seqs, max_num_batched_tokens) dummy requests: full-vocabulary logits
// in the model dtype, which Sampler.forward copies to float32 (4 bytes), while the
// pass's hidden states are still held.
// Returns the KV bytes; fills the plan's activation reserve and encoder outputs.
double vllm_rule_kv_bytes(const ModelSpec& model, const Deployment& dep, const EngineConfig& engine, double total,
                          double forward_peak, MemoryPlan& plan, std::ostream& why) {
  const double fraction = engine.gpu_memory_utilization;
  const double tokens = static_cast<double>(engine.max_batched_tokens);
  const double rows = static_cast<double>(std::min<std::int64_t>(engine.max_num_seqs, engine.max_batched_tokens));
  const double act = bytes_per_element(dep.activations);
  const double sampler_peak =
      tokens * model.hidden_size * act + rows * static_cast<double>(model.vocab_size) * (act + 4.0);
  std::int64_t images = 0;
  plan.encoder_profile_bytes_per_gpu = encoder_outputs_bytes(model, dep, engine, &images);
  plan.activation_reserve_bytes_per_gpu = std::max(forward_peak, sampler_peak) + plan.encoder_profile_bytes_per_gpu;
  const double kv_bytes = total * fraction - plan.weight_bytes_per_gpu - plan.activation_reserve_bytes_per_gpu;
  why << "vLLM rule: " << total / kBytesPerGiB << " GiB x " << fraction << " - weights - profile peak "
      << plan.activation_reserve_bytes_per_gpu / kBytesPerGiB << " GiB (forward over " << engine.max_batched_tokens
      << " tokens, or sampler over " << rows << " rows";
  if (images > 0)
    why << "; plus the encoder outputs of " << images << " dummy images of " << model.vision_image_tokens
        << " embeddings, " << plan.encoder_profile_bytes_per_gpu / kBytesPerGiB << " GiB";
  why << ")";
  return kv_bytes;
}

// python/sglang/srt/model_executor/model_runner.py, ModelRunner.profile_max_num_token:
// rest_memory = available_gpu_memory (free after the weights) - total_gpu_memory (free
// at start) x (1 - mem_fraction_static), i.e. total x fraction - weights. Activations,
// CUDA graphs and the CUDA context live in the (1 - fraction) left over.
// Returns the KV bytes; *fraction is the fraction applied (SGLang's default for 0).
double sglang_rule_kv_bytes(const Deployment& dep, const EngineConfig& engine, double total, const MemoryPlan& plan,
                            double* fraction, std::ostream& why) {
  if (!(*fraction > 0))
    *fraction = sglang_default_mem_fraction(total, engine.prefill_chunk_tokens, engine.cuda_graph_max_batch,
                                            dep.tp, dep.pp);
  why << "SGLang rule: " << total / kBytesPerGiB << " GiB x mem_fraction_static " << *fraction << " - weights";
  return total * *fraction - plan.weight_bytes_per_gpu;
}

// tensorrt_llm/_torch/pyexecutor/_util.py, KvCacheCreator.configure_kv_cache_capacity
// and _cal_max_memory: available_kv_mem = (total_gpu_memory - peak_memory +
// allocated_bytes) x free_gpu_memory_fraction, peak_memory = the torch peak of a
// warm-up over max_num_tokens (weights + activations) + memory outside torch
// (NCCL, CUDA graphs, CUDA context; no figure in the source, 0 here), allocated_bytes
// = the small KV cache of the estimation run, added back.
// Returns the KV bytes; the forward peak is the plan's activation reserve.
double trtllm_rule_kv_bytes(const EngineConfig& engine, double total, double forward_peak, MemoryPlan& plan,
                            std::ostream& why) {
  const double fraction = engine.gpu_memory_utilization;
  plan.activation_reserve_bytes_per_gpu = forward_peak;
  why << "TensorRT-LLM rule: free_gpu_memory_fraction " << fraction << " x (" << total / kBytesPerGiB
      << " GiB - weights - activations " << forward_peak / kBytesPerGiB << " GiB of " << engine.max_batched_tokens
      << " tokens)";
  return fraction * (total - plan.weight_bytes_per_gpu - forward_peak);
}

// The hybrid KV cache manager's grouping (kv_cache_groups.h) for a model with chunked
// local layers under the vLLM rule: the plan's capacity becomes the token count vLLM
// logs. Each servesim block of block_size tokens stands for one block in every group, as
// the logged figure counts.
void vllm_hybrid_kv_capacity(const ModelSpec& model, const Deployment& dep, const EngineConfig& engine,
                             const ShardShape& s, double kv_bytes, MemoryPlan& plan, std::ostream& why) {
  const double per_layer = kv_elements_per_token_layer(model, s) * bytes_per_element(dep.kv);
  const KvCacheGroups groups = vllm_kv_cache_groups(model, s.layers);
  const std::int64_t blocks = plan.fits ? vllm_num_blocks(groups, kv_bytes, per_layer, engine.block_size) : 0;
  plan.kv_capacity_tokens = vllm_logged_kv_tokens(groups, blocks, engine.block_size);
  why.precision(6);
  why << "; " << describe(groups, model.attention_chunk_size) << ": num_blocks = KV bytes // page "
      << static_cast<std::int64_t>(engine.block_size * per_layer) << " B // " << groups.stage_group_size
      << " layers = " << blocks << "; GPU KV cache size " << blocks << " // " << groups.groups() << " x "
      << engine.block_size << " = " << plan.kv_capacity_tokens << " tokens; maximum concurrency for "
      << model.max_context_tokens << " tokens per request "
      << vllm_max_concurrency(groups, blocks, engine.block_size, model.max_context_tokens,
                              engine.max_batched_tokens, model.attention_chunk_size)
      << "x";
}

}  // namespace

namespace {

MemoryPlan plan_memory_by_rule(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                               const EngineConfig& engine) {
  if (engine.kv_memory_rule == KvMemoryRule::flat)
    return plan_memory(model, hw, dep, engine.gpu_memory_utilization, engine.max_batched_tokens);
  const ShardShape s = shard_shape(model, dep);
  MemoryPlan plan;
  plan.rule = engine.kv_memory_rule;
  plan.vision_weight_bytes_per_gpu = vision_weight_bytes_per_gpu(model, dep);
  plan.weight_bytes_per_gpu = weight_bytes_per_gpu(model, dep) + plan.vision_weight_bytes_per_gpu;
  plan.kv_bytes_per_token_per_gpu = s.layers * kv_elements_per_token_layer(model, s) * bytes_per_element(dep.kv);
  const double tokens = static_cast<double>(engine.max_batched_tokens);
  const double forward_peak = tokens * forward_activation_bytes_per_token(model, dep);
  const double total = hw.memory_bytes;
  double fraction = engine.gpu_memory_utilization;
  double kv_bytes = 0;
  std::ostringstream why;
  why.precision(4);
  explain_weights_line(why, model, dep, plan, total);
  switch (engine.kv_memory_rule) {
    case KvMemoryRule::vllm:
      kv_bytes = vllm_rule_kv_bytes(model, dep, engine, total, forward_peak, plan, why);
      break;
    case KvMemoryRule::sglang:
      kv_bytes = sglang_rule_kv_bytes(dep, engine, total, plan, &fraction, why);
      break;
    case KvMemoryRule::trtllm:
      kv_bytes = trtllm_rule_kv_bytes(engine, total, forward_peak, plan, why);
      break;
    case KvMemoryRule::flat:
      break;
  }
  plan.fraction = fraction;
  plan.kv_bytes_per_gpu = std::max(kv_bytes, 0.0);
  plan.fits = kv_bytes > 0 && plan.kv_bytes_per_token_per_gpu > 0;
  plan.kv_capacity_tokens =
      plan.fits ? static_cast<std::int64_t>(std::floor(kv_bytes / plan.kv_bytes_per_token_per_gpu)) : 0;
  why << " = KV cache " << kv_bytes / kBytesPerGiB << " GiB at " << plan.kv_bytes_per_token_per_gpu / 1024.0
      << " KiB/token";
  if (engine.kv_memory_rule == KvMemoryRule::vllm && model.has_chunked_attention())
    vllm_hybrid_kv_capacity(model, dep, engine, s, kv_bytes, plan, why);
  else
    why << " = " << plan.kv_capacity_tokens << " tokens";
  if (!plan.fits) why << " (does not fit: the weights and reserve exceed the memory the rule gives)";
  plan.explanation = why.str();
  return plan;
}

// Multi-LoRA: vLLM allocates max_loras adapter slots at max_lora_rank with the model
// (vllm/lora/models.py, the LoRA layers' create_lora_weights) before it measures what is
// left for the KV cache, so the slots come out of the KV cache's share.
void reserve_lora_slots(const ModelSpec& model, const Deployment& dep, const LoraConfig& lora, MemoryPlan& plan) {
  const double slot_bytes = lora.max_loras * lora_adapter_bytes(model, dep, lora) / dep.gpus();
  const double kv_before = plan.kv_bytes_per_gpu;
  const double kv_bytes = kv_before - slot_bytes;
  plan.weight_bytes_per_gpu += slot_bytes;
  plan.kv_bytes_per_gpu = std::max(kv_bytes, 0.0);
  plan.fits = plan.fits && kv_bytes > 0;
  // Capacity in proportion to the bytes left (exact for one KV group; a hybrid model's
  // capacity is not linear in its bytes, but the slots are a small part of them).
  plan.kv_capacity_tokens =
      plan.fits ? static_cast<std::int64_t>(std::floor(static_cast<double>(plan.kv_capacity_tokens) * kv_bytes / kv_before)) : 0;
  std::ostringstream why;
  why.precision(4);
  why << "; less LoRA slots " << slot_bytes / kBytesPerGiB << " GiB (" << lora.max_loras
      << " adapters of rank " << lora.max_lora_rank << "): KV cache " << kv_bytes / kBytesPerGiB << " GiB = "
      << plan.kv_capacity_tokens << " tokens";
  plan.explanation += why.str();
}

}  // namespace

MemoryPlan plan_memory(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                       const EngineConfig& engine) {
  MemoryPlan plan = plan_memory_by_rule(model, hw, dep, engine);
  if (engine.lora.enabled) reserve_lora_slots(model, dep, engine.lora, plan);
  return plan;
}

std::string kv_cache_line(std::int64_t kv_blocks, int block_size) {
  return "KV cache: " + std::to_string(kv_blocks * block_size) + " tokens (" + std::to_string(kv_blocks) +
         " blocks of " + std::to_string(block_size) + ")";
}

}  // namespace servesim
