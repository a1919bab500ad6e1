#include "sim/engine/lora_slots.h"

#include <algorithm>
#include <cmath>

#include "sim/model/dtype.h"
#include "sim/model/lora_shapes.h"

namespace servesim {

LoraStepAdapters::LoraStepAdapters(const std::vector<RequestState*>& running, int max_loras) : max_loras_(max_loras) {
  for (const RequestState* r : running) add(r->spec.lora_adapter);
}

bool LoraStepAdapters::has(int adapter) const { return std::find(ids_.begin(), ids_.end(), adapter) != ids_.end(); }

bool LoraStepAdapters::admits(int adapter) const {
  return adapter == 0 || count() < max_loras_ || has(adapter);
}

void LoraStepAdapters::add(int adapter) {
  if (adapter != 0 && !has(adapter)) ids_.push_back(adapter);
}

LoraAdapterCache::LoraAdapterCache(const LoraConfig& config)
    : gpu_slots_(config.max_loras), cpu_slots_(config.max_cpu_loras) {}

bool LoraAdapterCache::on_gpu(int adapter) const { return std::find(gpu_.begin(), gpu_.end(), adapter) != gpu_.end(); }
bool LoraAdapterCache::on_cpu(int adapter) const { return std::find(cpu_.begin(), cpu_.end(), adapter) != cpu_.end(); }

bool LoraAdapterCache::touch(std::vector<int>& lru, int adapter) {
  const auto it = std::find(lru.begin(), lru.end(), adapter);
  if (it == lru.end()) return false;
  std::rotate(it, it + 1, lru.end());
  return true;
}

void LoraAdapterCache::insert(std::vector<int>& lru, int adapter, int capacity) {
  if (static_cast<int>(lru.size()) >= capacity) lru.erase(lru.begin());
  lru.push_back(adapter);
}

LoraAdapterCache::Where LoraAdapterCache::activate(int adapter) {
  // add_adapter first (CPU cache: hit or a read from disk), then activate_adapter (GPU slot).
  const bool in_cpu = touch(cpu_, adapter);
  if (!in_cpu) insert(cpu_, adapter, cpu_slots_);
  if (touch(gpu_, adapter)) return Where::gpu;
  insert(gpu_, adapter, gpu_slots_);
  return in_cpu ? Where::cpu : Where::disk;
}

Tick LoraLoadCost::load_ns(LoraAdapterCache::Where from) const {
  if (from == LoraAdapterCache::Where::gpu) return 0;
  double s = host_link_bytes_per_s > 0 ? adapter_bytes_per_gpu / host_link_bytes_per_s : 0;
  if (from == LoraAdapterCache::Where::disk && disk_bytes_per_s > 0) s += adapter_bytes / disk_bytes_per_s;
  return static_cast<Tick>(std::llround(s * 1e9));
}

Tick LoraLoadCost::compute_ns(std::int64_t tokens, int adapters) const {
  if (tokens == 0 || !(flops_per_token_per_gpu > 0)) return 0;
  const double compute_s = peak_flops_per_s > 0 ? static_cast<double>(tokens) * flops_per_token_per_gpu / peak_flops_per_s : 0;
  const double memory_s = memory_bytes_per_s > 0 ? adapters * adapter_bytes_per_gpu / memory_bytes_per_s : 0;
  return static_cast<Tick>(std::llround(std::max(compute_s, memory_s) * 1e9));
}

double lora_adapter_bytes(const ModelSpec& model, const Deployment& deployment, const LoraConfig& config) {
  if (config.adapter_bytes_given) return config.adapter_bytes;
  return lora_adapter_params(model, config.max_lora_rank) * bytes_per_element(deployment.activations);
}

}  // namespace servesim
