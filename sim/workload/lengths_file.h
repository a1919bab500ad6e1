#pragma once
// Length-only traces (trace format `lengths`): CSV files with columns num_prefill_tokens
// and num_decode_tokens, such as Sarathi-Serve's and Vidur's processed ShareGPT and arXiv
// files. Other columns are ignored. Each row is used once, in file order; then the source
// is used up (no cycling, so a run never silently repeats its data).
#include <optional>
#include <string>

#include "sim/workload/csv_reader.h"
#include "sim/workload/length_source.h"

namespace servesim {

class LengthsFile : public LengthSource {
 public:
  // Opens `path`, finds both columns and checks every row in one streaming pass (no row is
  // kept), so a bad row is reported before the run starts. Throws ConfigError naming
  // file:line and the column for a missing column, a non-numeric cell, a prompt < 1 or an
  // output < 0.
  explicit LengthsFile(const std::string& path);

  bool has_next() override { return lookahead_.has_value(); }
  TokenLengths next() override;
  // Number of data rows in the file (counted by the checking pass).
  std::int64_t row_count() const { return row_count_; }

 private:
  void advance();

  CsvReader reader_;
  int prompt_column_;
  int output_column_;
  std::optional<TokenLengths> lookahead_;
  std::int64_t row_count_ = 0;
};

}  // namespace servesim
