#pragma once
// The compare study (`servesim compare`, docs/sweeps.md): two summary.json files, or two
// sweep tables row by row, figure by figure against tolerances; a figure regresses when it
// moves its bad way by more than its tolerance.
#include <string>

#include "sim/study/summary_compare.h"

namespace servesim {

// The file compare reads for `path`: the path itself, or for a run or sweep folder the
// summary.json (else sweep.json) inside it. A folder with neither is a ConfigError.
std::string comparable_file(const std::string& path);

// Reads both files (comparable_file: a folder stands for its summary.json or sweep.json).
// Throws ConfigError naming a file that is not JSON, or when one is a sweep table and the
// other is not.
Comparison compare_files(const std::string& baseline, const std::string& candidate, const Tolerances& tolerances);

}  // namespace servesim
