#pragma once
// Reads a step-time measurement CSV (the columns of data/measurements/h200_llama3_8b_steps.csv:
// kind, model, prefill_tokens, past_tokens, decode_batch, decode_context, gemm_m, gemm_k,
// gemm_n, dtype, ms). Bad cells throw ConfigError naming file:line and the column.
#include <string>
#include <vector>

#include "sim/hardware/measurement.h"

namespace servesim {

// Every row of the file. Kinds: ceiling, gemm, prefill, decode, mixed (a step with both
// a prefill chunk and decodes), attn_prefill, attn_decode. The free-text `model` column may
// hold unquoted commas (the kernel rows do): the extra cells are joined back into it.
std::vector<Measurement> read_measurements(const std::string& path);

}  // namespace servesim
