#include "sim/model/dtype.h"

namespace servesim {

double bytes_per_element(Dtype d) {
  switch (d) {
    case Dtype::bf16: return 2.0;
    case Dtype::fp8: return 1.0;
    case Dtype::int8: return 1.0;
    case Dtype::int4: return 0.5;
  }
  return 2.0;
}

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::bf16: return "bf16";
    case Dtype::fp8: return "fp8";
    case Dtype::int8: return "int8";
    case Dtype::int4: return "int4";
  }
  return "bf16";
}

std::optional<Dtype> parse_dtype(std::string_view t) {
  if (t == "bf16" || t == "fp16" || t == "float16" || t == "bfloat16") return Dtype::bf16;
  if (t == "fp8" || t == "float8") return Dtype::fp8;
  if (t == "int8") return Dtype::int8;
  if (t == "int4") return Dtype::int4;
  return std::nullopt;
}

}  // namespace servesim
