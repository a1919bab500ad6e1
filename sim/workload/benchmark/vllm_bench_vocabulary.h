#pragma once
// Names `vllm bench serve`'s result files use, shared by the per-request reader
// (vllm_bench_format.cpp) and the aggregates reader (vllm_bench_summary.cpp).

namespace servesim {

// The per-request arrays --save-detailed adds: a file with any of them is per-request.
inline constexpr const char* kVllmBenchDetailedArrays[] = {"input_lens", "output_lens", "ttfts", "itls", "errors"};

}  // namespace servesim
