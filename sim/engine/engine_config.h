#pragma once
// The knobs of one replica's serving engine (the scenario's `engine:` block, possibly on top
// of a preset from configs/engines/). docs/engine.md gives each knob's exact rule and the
// engine default it copies.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/engine/lora_config.h"
#include "sim/model/model_spec.h"

namespace servesim {

// What happens to a preempted request's KV cache (vLLM's preemption_mode).
enum class PreemptionMode { recompute, swap };
// A request whose prompt + output exceeds the model's maximum context.
enum class ContextOverflow { reject, truncate };
// How much KV a waiting request must find free to be admitted.
enum class KvAdmission {
  greedy,       // its next chunk's blocks (vLLM, SGLang): later growth may preempt someone
  reserve_full  // blocks for its whole sequence, counting what running requests will still
                // grow into (TensorRT-LLM's GUARANTEED_NO_EVICT): never preempts
};

// CPU-side time the engine spends outside the model's kernels, added to each step by the
// replica (kept apart from the cost model so attribution can tell them apart).
struct EngineOverheads {
  Tick per_step_ns = 0;     // scheduling, input preparation, launch of one step
  Tick per_request_ns = 0;  // once, in the step a request is first scheduled (API, tokenise)
  Tick per_token_ns = 0;    // each output token sampled (sampling, detokenise, stream)
  // Per-request latency outside the engine process (API server, tokenisation before the
  // engine sees the request, IPC to and from the engine, detokenisation and streaming of
  // the first token): frontend_ns + frontend_per_prompt_token_ns x prompt tokens, plus the
  // wait in the tokenizer's micro-batch window, added to the request's TTFT and E2E, not
  // to any step, so it slows no other request (docs/engine.md, "Front-end latency").
  Tick frontend_ns = 0;
  Tick frontend_per_prompt_token_ns = 0;  // tokenising the prompt grows with its length
  // The API server gathers prompts for its tokenizer: the first opens a window this long and
  // every prompt arriving in it is encoded when it closes (vLLM's AsyncMicrobatchTokenizer,
  // batch_wait_timeout_s); 0: each prompt is encoded at once.
  Tick frontend_tokenizer_batch_wait_ns = 0;
  // The API server's CPU per streamed token (built into a chunk, written). A first token's
  // chunk is written after those of the other outputs of its step (new requests come last),
  // so it waits this x those outputs; and it is a capacity, 1 / this tokens per second per
  // API-server process, which a run is checked against (sim/study/streaming_capacity.h).
  Tick frontend_per_streamed_token_ns = 0;
  Tick frontend_for(std::int64_t prompt_tokens) const {
    return frontend_ns + frontend_per_prompt_token_ns * prompt_tokens;
  }
  bool any() const { return per_step_ns > 0 || per_request_ns > 0 || per_token_ns > 0; }
};

// How the engine sizes its KV cache from device memory (sim/engine/memory_plan.h).
enum class KvMemoryRule {
  flat,    // utilisation x memory - weights - (1 GiB + activations of the token budget)
  vllm,    // vLLM V1 determine_available_memory: utilisation x memory - weights - profile peak
  sglang,  // SGLang profile_max_num_token: mem_fraction_static x memory - weights
  trtllm   // TensorRT-LLM KvCacheCreator: free_gpu_memory_fraction x (memory - weights - peak)
};

// Speculative decoding: k proposed tokens per decode, verified by one target pass.
struct SpeculativeConfig {
  bool enabled = false;
  std::string method = "draft";            // draft (a draft model) | ngram (prompt lookup)
  std::optional<ModelSpec> draft_model;    // method draft: priced by the pool's cost model
  int k = 4;                               // proposed tokens per step
  double acceptance = 0.7;                 // per-token acceptance rate alpha, every class
  std::vector<double> acceptance_by_class; // by workload class index; empty: `acceptance`
  double acceptance_for(int class_index) const {
    const auto i = static_cast<std::size_t>(class_index);
    return class_index >= 0 && i < acceptance_by_class.size() ? acceptance_by_class[i] : acceptance;
  }
};

// KV blocks kept below HBM (docs/prefix-caching.md, "KV tiers"): a prefix block evicted
// from HBM is stored in CPU memory, and one pushed out of CPU memory on disk, each tier
// least recently used first out; a later prefix hit in a tier is loaded back over the
// host link instead of recomputed. vLLM's KV offloading connector (--kv-offloading-size,
// CPU only, the size summed over the replica's GPUs) and LMCache (CPU and local disk).
enum class KvOffloadBackend {
  native,   // vLLM's OffloadingConnector: the load completes before the step computes
  lmcache,  // LMCache's layer-wise pipelining: layer i loads while layer i - 1 computes
};
struct KvOffloadConfig {
  double cpu_bytes = 0;        // CPU memory for KV per replica (all its GPUs together)
  double disk_bytes = 0;       // local disk for KV per replica
  double disk_bytes_per_s = 0; // the disk's read (and write) bandwidth per replica
  KvOffloadBackend backend = KvOffloadBackend::native;
  // A store the pool's replicas share (Mooncake Store, LMCache's remote backend) instead
  // of one per replica: cpu_bytes and disk_bytes are then the store's, and every transfer
  // crosses the network instead of the host links: at network_bytes_per_s per replica (all
  // its GPUs' KV through its node's NICs), or, with store_node, over each GPU's path to
  // that node of the cluster topology (sim/cluster/kv_store_reach.h).
  bool shared = false;
  double network_bytes_per_s = 0;
  std::string store_node;
  bool enabled() const { return cpu_bytes > 0 || disk_bytes > 0; }
};

struct EngineConfig {
  std::string preset;                      // configs/engines/NAME.yaml it started from, if any
  // The engine's release ("0.14.0"), which selects version-specific behaviour and the
  // kernel tables measured under it (sim/hardware/kernels/kernel_tables.h); "" = the preset's.
  std::string version;
  // Decode-only steps of up to this many sequences replay a captured CUDA graph, padded up
  // to the next captured batch size (vLLM's cudagraph_capture_sizes); 0 = no graphs.
  int cuda_graph_max_batch = 0;
  // Async scheduling (vLLM's async_scheduling, SGLang's overlap scheduler, TensorRT-LLM's
  // overlap scheduler): the CPU work of the next step runs while the GPU runs this one, so
  // a step's CPU overheads add only max(0, cpu - gpu step) to it (docs/engine.md).
  bool async_scheduling = false;
  // `async_scheduling: auto` (the vllm preset): vLLM's own rule, on unless the engine runs
  // speculative decoding other than EAGLE/MTP, which servesim's draft-model and n-gram
  // methods are; resolved once the engine block is merged (parse_engine).
  bool async_scheduling_auto = false;
  KvMemoryRule kv_memory_rule = KvMemoryRule::flat;
  std::string policy = "chunked-prefill";  // continuous | chunked-prefill | ... (registry)
  int max_num_seqs = 256;                  // running sequences per step
  std::int64_t max_batched_tokens = 8192;  // token budget per step
  int block_size = 16;                     // tokens per KV block
  bool prefix_cache = false;
  std::optional<std::int64_t> kv_cache_tokens;  // overrides the memory-derived capacity
  double gpu_memory_utilization = 0.9;     // vLLM's default

  // Largest prompt chunk one request computes in one step; 0: only the token budget limits
  // it (vLLM's long_prefill_token_threshold, SGLang's chunked_prefill_size).
  std::int64_t prefill_chunk_tokens = 0;
  // decode-priority: new requests are admitted only in steps that start with fewer than
  // this many running decodes; 0 means max_num_seqs / 2 (rounded up).
  int decode_target_batch = 0;
  // priority: a waiting request may preempt running requests of strictly lower priority.
  bool preempt_lower_priority = false;

  // KV admission: a waiting request is admitted only if this fraction of all blocks stays
  // free afterwards (vLLM v0's watermark, default 0.01 there; 0 here as in vLLM v1).
  double watermark = 0.0;
  KvAdmission kv_admission = KvAdmission::greedy;
  PreemptionMode preemption_mode = PreemptionMode::recompute;
  double swap_space_bytes = 4.0 * 1024 * 1024 * 1024;  // host memory per GPU (vLLM: 4 GiB)
  KvOffloadConfig kv_offload;  // none by default
  // Board power limit of each GPU in watts (nvidia-smi --power-limit); 0 = none. The pool's
  // steps slow as the clock would to stay under it (sim/hardware/power_capped_cost_model.h).
  double power_cap_w = 0;

  EngineOverheads overheads;
  SpeculativeConfig speculative;
  LoraConfig lora;  // multi-LoRA serving (lora_config.h); disabled unless the scenario has `lora:`
  ContextOverflow on_context_overflow = ContextOverflow::reject;

  // decode_target_batch with its default resolved.
  int decode_target() const { return decode_target_batch > 0 ? decode_target_batch : (max_num_seqs + 1) / 2; }
};

}  // namespace servesim
