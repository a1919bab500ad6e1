#pragma once
// Numeric formats for weights, activations and the KV cache.
#include <optional>
#include <string>
#include <string_view>

namespace servesim {

enum class Dtype { bf16, fp8, int8, int4 };

// Bytes per element: bf16 2, fp8 1, int8 1, int4 0.5.
double bytes_per_element(Dtype d);
std::string_view dtype_name(Dtype d);
// Parses "bf16" (also "fp16", "float16", "bfloat16"), "fp8", "int8", "int4".
std::optional<Dtype> parse_dtype(std::string_view text);

}  // namespace servesim
