#pragma once
// Vidur's per-operator profiling table (microsoft/vidur, data/profiling/compute/<gpu>/
// <model>/mlp.csv; data/SOURCES.md): for every (num_tokens, num_tensor_parallel_workers)
// point, the min/max/mean/median/std milliseconds of each token-level operator of ONE
// layer on one GPU. We keep the medians, grouped by TP degree and operator.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace servesim {

struct VidurOpTable {
  std::string path;
  // The model dimensions the table was measured for (whole model, before TP).
  int n_head = 0;
  int n_kv_head = 0;
  int n_embd = 0;
  int n_expanded_embd = 0;
  int vocab_size = 0;
  bool gated_mlp = true;
  // tp -> operator ("attn_pre_proj", "mlp_up_proj", ...) -> (tokens, median ms), sorted
  // by tokens; repeated token counts are averaged.
  std::map<int, std::map<std::string, std::vector<std::pair<double, double>>>> series;

  std::vector<int> tp_degrees() const;
};

// Reads a Vidur mlp.csv: columns are found by name; every `time_stats.<op>.median` column
// becomes an operator. Throws ConfigError(path, line, column, message) on a bad file.
VidurOpTable read_vidur_table(const std::string& path);

// Median ms at `tokens`, linear between the two nearest measured token counts; nullopt
// below the smallest or above the largest (the caller falls back to the roofline).
std::optional<double> interpolate_ms(const std::vector<std::pair<double, double>>& points,
                                     double tokens);

}  // namespace servesim
