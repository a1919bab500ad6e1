#include "sim/hardware/measurement.h"

namespace servesim {

std::string Measurement::label() const {
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  std::string past = past_tokens > 0 ? ":" + n(past_tokens) : "";
  switch (kind) {
    case MeasurementKind::ceiling: return "ceiling " + model;
    case MeasurementKind::gemm: return "gemm " + n(gemm_m) + "x" + n(gemm_k) + "x" + n(gemm_n);
    case MeasurementKind::attn_prefill: return "attn_prefill " + n(prefill_tokens) + past;
    case MeasurementKind::attn_decode:
      return "attn_decode " + n(decode_batch) + " x " + n(decode_context);
    case MeasurementKind::step: break;
  }
  std::string s;
  if (prefill_tokens > 0) s = "prefill " + n(prefill_tokens) + past;
  if (decode_batch > 0) {
    s += s.empty() ? "" : " + ";
    s += "decode " + n(decode_batch) + " x " + n(decode_context);
  }
  return s;
}

}  // namespace servesim
