#include "sim/engine/kv_cache_groups.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace servesim {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The groups of one kind's layers (in layer order): layers[i::n] for i < n.
std::vector<std::vector<int>> split(const std::vector<int>& layers, int group_size) {
  const int n = static_cast<int>(ceil_div(static_cast<std::int64_t>(layers.size()), group_size));
  std::vector<std::vector<int>> groups(static_cast<std::size_t>(n));
  for (std::size_t j = 0; j < layers.size(); ++j) groups[j % static_cast<std::size_t>(n)].push_back(layers[j]);
  return groups;
}

}  // namespace

KvCacheGroups vllm_kv_cache_groups(const ModelSpec& model, int layers_per_stage) {
  std::vector<int> full;
  std::vector<int> chunked;
  for (int i = 0; i < model.num_layers; ++i) (model.is_chunked_local_layer(i) ? chunked : full).push_back(i);
  KvCacheGroups g;
  g.full_layers = static_cast<int>(full.size());
  g.chunked_layers = static_cast<int>(chunked.size());
  std::vector<std::vector<int>> groups;
  if (full.empty() || chunked.empty()) {
    // One kind of layer: _get_kv_cache_groups_uniform_spec, one group of every layer.
    groups.push_back(full.empty() ? chunked : full);
    g.group_size = model.num_layers;
    (full.empty() ? g.chunked_groups : g.full_groups) = 1;
  } else {
    const int fewest = std::min(g.full_layers, g.chunked_layers);
    const int most = std::max(g.full_layers, g.chunked_layers);
    // "If the number of layers is not much larger than the minimum number of layers, use
    // the maximum number of layers as the group size to avoid too many padding layers."
    g.group_size = most < fewest * 1.5 ? most : fewest;
    for (const std::vector<int>* kind : {&full, &chunked}) {
      const auto parts = split(*kind, g.group_size);
      (kind == &full ? g.full_groups : g.chunked_groups) = static_cast<int>(parts.size());
      groups.insert(groups.end(), parts.begin(), parts.end());
    }
  }
  // _project_kv_cache_groups_to_worker keeps each stage's own layers of every group; the
  // stage whose groups are longest has the fewest blocks, which every stage then takes.
  const int per_stage = std::max(1, layers_per_stage);
  for (int first = 0; first < model.num_layers; first += per_stage) {
    for (const std::vector<int>& group : groups) {
      const auto in_stage = std::count_if(group.begin(), group.end(),
                                          [&](int i) { return i >= first && i < first + per_stage; });
      g.stage_group_size = std::max(g.stage_group_size, static_cast<int>(in_stage));
    }
  }
  return g;
}

std::int64_t vllm_num_blocks(const KvCacheGroups& g, double kv_bytes_per_gpu, double kv_bytes_per_token_layer,
                             int block_size) {
  const double page_bytes = static_cast<double>(block_size) * kv_bytes_per_token_layer;
  if (!(kv_bytes_per_gpu > 0) || !(page_bytes > 0) || g.stage_group_size < 1) return 0;
  // int(available_memory // page_size // num_layers): integer divisions of whole bytes.
  const auto available = static_cast<std::int64_t>(std::floor(kv_bytes_per_gpu));
  const auto page = static_cast<std::int64_t>(page_bytes);
  return available / page / g.stage_group_size;
}

std::int64_t vllm_logged_kv_tokens(const KvCacheGroups& g, std::int64_t num_blocks, int block_size) {
  return g.groups() > 0 ? num_blocks / g.groups() * block_size : 0;
}

double vllm_max_concurrency(const KvCacheGroups& g, std::int64_t num_blocks, int block_size,
                            std::int64_t max_model_len, std::int64_t max_num_batched_tokens,
                            int attention_chunk_size) {
  const std::int64_t full = ceil_div(max_model_len, block_size);
  const std::int64_t chunked =
      ceil_div(std::min<std::int64_t>(attention_chunk_size + max_num_batched_tokens, max_model_len), block_size);
  const std::int64_t per_request = g.full_groups * full + g.chunked_groups * chunked;
  return per_request > 0 ? static_cast<double>(num_blocks) / static_cast<double>(per_request) : 0.0;
}

std::string describe(const KvCacheGroups& g, int attention_chunk_size) {
  return std::to_string(g.full_layers + g.chunked_layers) + " layers in " + std::to_string(g.groups()) +
         " groups of " + std::to_string(g.group_size) + " (" + std::to_string(g.full_layers) +
         " full attention in " + std::to_string(g.full_groups) + ", " + std::to_string(g.chunked_layers) +
         " chunked local of " + std::to_string(attention_chunk_size) + " tokens in " +
         std::to_string(g.chunked_groups) + ")";
}

}  // namespace servesim
