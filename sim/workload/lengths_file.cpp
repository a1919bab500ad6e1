#include "sim/workload/lengths_file.h"

#include "sim/core/assert.h"

namespace servesim {
namespace {

constexpr const char* kPromptColumn = "num_prefill_tokens";
constexpr const char* kOutputColumn = "num_decode_tokens";

TokenLengths read_row(const CsvReader& reader, int prompt_column, int output_column) {
  TokenLengths lengths;
  lengths.prompt_tokens = reader.whole_number(prompt_column, 1);
  lengths.output_tokens = reader.whole_number(output_column, 0);
  return lengths;
}

}  // namespace

LengthsFile::LengthsFile(const std::string& path)
    : reader_(path), prompt_column_(reader_.column(kPromptColumn)), output_column_(reader_.column(kOutputColumn)) {
  // Checking pass on a second reader; reader_ stays at the header for the real pass.
  CsvReader check(path);
  const int prompt = check.column(kPromptColumn);
  const int output = check.column(kOutputColumn);
  while (check.next_row()) {
    read_row(check, prompt, output);
    ++row_count_;
  }
  advance();
}

void LengthsFile::advance() {
  if (reader_.next_row()) {
    lookahead_ = read_row(reader_, prompt_column_, output_column_);
  } else {
    lookahead_.reset();
  }
}

TokenLengths LengthsFile::next() {
  SS_ASSERT(lookahead_.has_value(), "LengthsFile::next past the end");
  const TokenLengths lengths = *lookahead_;
  advance();
  return lengths;
}

}  // namespace servesim
