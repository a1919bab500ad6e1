#pragma once
// The compare study (`servesim compare`, docs/sweeps.md): two summary.json files, or two
// sweep tables row by row, figure by figure against tolerances; a figure regresses when it
// moves its bad way by more than its tolerance.
#include <string>

#include "sim/study/summary_compare.h"

namespace servesim {

// Reads both files. Throws ConfigError naming a file that is not JSON, or when one is a
// sweep table and the other is not.
Comparison compare_files(const std::string& baseline, const std::string& candidate, const Tolerances& tolerances);

}  // namespace servesim
