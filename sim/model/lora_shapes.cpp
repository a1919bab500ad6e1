#include "sim/model/lora_shapes.h"

namespace servesim {

double lora_adapter_params(const ModelSpec& model, int rank) {
  if (model.num_experts > 0) return 0;
  const double h = model.hidden_size;
  const double q = static_cast<double>(model.num_attention_heads) * model.head_dim;
  const double kv = static_cast<double>(model.num_kv_heads) * model.head_dim;
  const double inter = model.intermediate_size;
  // d_in + d_out of q and o, of k and v, of gate, up and down.
  const double per_layer = 2 * (h + q) + 2 * (h + kv) + 3 * (h + inter);
  return static_cast<double>(model.num_layers) * rank * per_layer;
}

}  // namespace servesim
