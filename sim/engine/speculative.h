#pragma once
// Speculative decoding arithmetic (Leviathan, Kalman & Matias, "Fast Inference from
// Transformers via Speculative Decoding", ICML 2023, eq. 1): with k proposed tokens, each
// accepted with probability alpha independently, a verify step emits the accepted prefix
// plus one token from the target model, in expectation (1 - alpha^(k+1)) / (1 - alpha).
namespace servesim {

// Expected tokens one verify step emits per sequence; k + 1 when alpha = 1, 1 when
// alpha = 0. REQUIRES: 0 <= alpha <= 1, k >= 0.
double expected_tokens_per_step(double alpha, int k);

}  // namespace servesim
