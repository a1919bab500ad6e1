#include "sim/workload/prompt_structure.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"
#include "sim/workload/sampled_lengths.h"

namespace servesim {

std::uint64_t shared_content_key(const std::string& name) { return hash_combine(stable_hash("shared"), stable_hash(name)); }

std::uint64_t pool_document_key(const std::string& pool, std::int64_t document) {
  return hash_combine(hash_combine(stable_hash("pool"), stable_hash(pool)), static_cast<std::uint64_t>(document));
}

struct PromptGenerator::Segment {
  Segment(PromptSegmentSpec::Kind k, Rng r) : kind(k), rng(r) {}
  PromptSegmentSpec::Kind kind;
  Rng rng;
  std::unique_ptr<Distribution> length;  // unique segments
  std::int64_t shared_tokens = 0;
  std::uint64_t key = 0;                 // shared: its key; unique: per-segment base
  std::string pool;
  std::vector<std::int64_t> doc_tokens;  // pool: length of each document
  std::vector<bool> doc_clamped;         // pool: whether that length was clamped (draw_tokens)
  std::vector<double> cdf;               // pool: cumulative popularity, cdf.back() == 1
  std::int64_t last_document = -1;
};

PromptGenerator::PromptGenerator(const std::vector<PromptSegmentSpec>& specs, const std::string& class_name,
                                 std::uint64_t seed)
    : unique_base_(hash_combine(stable_hash("unique"), stable_hash(class_name))) {
  SS_ASSERT(!specs.empty(), "a structured prompt needs segments");
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const PromptSegmentSpec& spec = specs[i];
    auto seg = std::make_unique<Segment>(spec.kind, Rng(seed, "workload/" + class_name + "/prompt/" + std::to_string(i)));
    switch (spec.kind) {
      case PromptSegmentSpec::Kind::shared:
        seg->shared_tokens = static_cast<std::int64_t>(std::llround(spec.tokens.a));
        seg->key = shared_content_key(spec.name);
        break;
      case PromptSegmentSpec::Kind::pool: {
        SS_ASSERT(spec.count >= 1 && spec.count <= kMaxPoolDocuments, "pool size");
        seg->pool = spec.name;
        const auto length = make_distribution(spec.tokens);
        Rng docs(seed, "workload/pool/" + spec.name);
        seg->doc_tokens.resize(static_cast<std::size_t>(spec.count));
        seg->doc_clamped.resize(static_cast<std::size_t>(spec.count));
        seg->cdf.resize(static_cast<std::size_t>(spec.count));
        double total = 0;
        for (std::int64_t d = 0; d < spec.count; ++d) {
          const DrawnTokens doc = draw_tokens(*length, docs, 0);
          seg->doc_tokens[static_cast<std::size_t>(d)] = doc.tokens;
          seg->doc_clamped[static_cast<std::size_t>(d)] = doc.clamped;
          total += std::pow(static_cast<double>(d + 1), -spec.zipf);
          seg->cdf[static_cast<std::size_t>(d)] = total;
        }
        for (double& c : seg->cdf) c /= total;
        seg->cdf.back() = 1.0;
        break;
      }
      case PromptSegmentSpec::Kind::unique:
        seg->length = make_distribution(spec.tokens);
        seg->key = hash_combine(unique_base_, i);
        break;
    }
    segments_.push_back(std::move(seg));
  }
}

PromptGenerator::~PromptGenerator() = default;
PromptGenerator::PromptGenerator(PromptGenerator&&) noexcept = default;

std::int64_t PromptGenerator::next(std::vector<ContentRun>& runs) {
  const std::uint64_t serial = serial_++;
  std::int64_t total = 0;
  last_clamped_ = false;
  for (auto& seg : segments_) {
    ContentRun run;
    switch (seg->kind) {
      case PromptSegmentSpec::Kind::shared:
        run = {seg->key, 0, seg->shared_tokens};
        break;
      case PromptSegmentSpec::Kind::pool: {
        // Inverse CDF: the first document whose cumulative popularity exceeds u.
        const double u = seg->rng.uniform01();
        const auto at = std::upper_bound(seg->cdf.begin(), seg->cdf.end(), u);
        const auto d = std::min<std::int64_t>(at - seg->cdf.begin(), static_cast<std::int64_t>(seg->cdf.size()) - 1);
        seg->last_document = d;
        run = {pool_document_key(seg->pool, d), 0, seg->doc_tokens[static_cast<std::size_t>(d)]};
        if (seg->doc_clamped[static_cast<std::size_t>(d)]) last_clamped_ = true;
        break;
      }
      case PromptSegmentSpec::Kind::unique: {
        const DrawnTokens drawn = draw_tokens(*seg->length, seg->rng, 0);
        run = {hash_combine(seg->key, serial), 0, drawn.tokens};
        if (drawn.clamped) last_clamped_ = true;
        break;
      }
    }
    if (run.tokens > 0) runs.push_back(run);
    total += run.tokens;
  }
  if (total < 1) {
    ++raised_;
    last_clamped_ = true;
    runs.push_back({hash_combine(unique_base_ ^ 0x1, serial), 0, 1});
    total = 1;
  }
  return total;
}

std::int64_t PromptGenerator::last_document(std::size_t segment) const {
  return segment < segments_.size() ? segments_[segment]->last_document : -1;
}

StructuredLengths::StructuredLengths(PromptGenerator prompts, std::unique_ptr<Distribution> output, Rng output_rng,
                                     std::int64_t block_tokens)
    : prompts_(std::move(prompts)), output_(std::move(output)), output_rng_(output_rng), block_tokens_(block_tokens) {
  SS_ASSERT(output_ != nullptr && block_tokens_ >= 1, "structured lengths need an output distribution");
}

TokenLengths StructuredLengths::next() {
  runs_.clear();
  TokenLengths lengths;
  lengths.prompt_tokens = prompts_.next(runs_);
  lengths.prompt_clamped = prompts_.last_clamped();
  const DrawnTokens output = draw_tokens(*output_, output_rng_, 0);
  lengths.output_tokens = output.tokens;
  lengths.output_clamped = output.clamped;
  lengths.block_hashes = chained_block_hashes(runs_, block_tokens_);
  return lengths;
}

}  // namespace servesim
