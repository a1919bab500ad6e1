#pragma once
// Structured prompts (a class's `prompt:` list, docs/prefix-caching.md): each prompt is the
// class's segments in order, each
//   shared  - the same tokens in every request (a system prompt, tool definitions);
//   pool    - one of `count` documents, document i chosen with probability proportional to
//             1/(i+1)^zipf; each document is a fixed token sequence whose length is drawn
//             once, so every request that picks it carries the same tokens;
//   unique  - tokens no other request has (the user's question, a timestamp).
// Content keys are scenario-wide: shared "system" is the same text in every class that names
// it, and document 3 of pool "docs" is the same document everywhere. A unique segment gets
// a key of its own per request. Hit rates then follow from the structure alone; in
// particular a unique segment placed first makes every later block unique (the "timestamp
// at the top" mistake).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/workload/block_hashing.h"
#include "sim/workload/distribution.h"
#include "sim/workload/length_source.h"
#include "sim/workload/workload_config.h"

namespace servesim {

// The largest document pool: its cumulative popularity table is held in memory.
inline constexpr std::int64_t kMaxPoolDocuments = 10'000'000;

// Content key of a shared segment, of a pool document, and of request-private content.
std::uint64_t shared_content_key(const std::string& name);
std::uint64_t pool_document_key(const std::string& pool, std::int64_t document);

class PromptGenerator {
 public:
  // Random streams: "workload/<class>/prompt/<i>" per segment (choices and unique lengths),
  // "workload/pool/<name>" for a pool's document lengths (so classes that share a pool with
  // the same `tokens` see the same documents). REQUIRES: a non-empty, validated list.
  PromptGenerator(const std::vector<PromptSegmentSpec>& segments, const std::string& class_name, std::uint64_t seed);
  ~PromptGenerator();
  PromptGenerator(PromptGenerator&&) noexcept;

  // Appends the runs of the next prompt to `runs`; returns its tokens (at least 1: an empty
  // draw gets one unique token and is counted in raised_prompts()).
  std::int64_t next(std::vector<ContentRun>& runs);
  std::uint64_t raised_prompts() const { return raised_; }
  // Whether the last prompt has a drawn length that was clamped (a unique segment's draw,
  // a chosen document's length, or the raise to 1 token).
  bool last_clamped() const { return last_clamped_; }
  // The document the last next() chose for segment `segment` (-1 unless it is a pool).
  std::int64_t last_document(std::size_t segment) const;

 private:
  struct Segment;
  std::vector<std::unique_ptr<Segment>> segments_;
  std::uint64_t unique_base_;   // per class, so unique content never collides
  std::uint64_t serial_ = 0;    // requests generated
  std::uint64_t raised_ = 0;
  bool last_clamped_ = false;
};

// Lengths and block hashes of structured prompts, with outputs from a distribution: the
// LengthSource of a synthetic class with `prompt:` and no session.
class StructuredLengths : public LengthSource {
 public:
  StructuredLengths(PromptGenerator prompts, std::unique_ptr<Distribution> output, Rng output_rng,
                    std::int64_t block_tokens);
  bool has_next() override { return true; }
  TokenLengths next() override;
  std::uint64_t raised_input_samples() const override { return prompts_.raised_prompts(); }

 private:
  PromptGenerator prompts_;
  std::unique_ptr<Distribution> output_;
  Rng output_rng_;
  std::int64_t block_tokens_;
  std::vector<ContentRun> runs_;  // reused
};

}  // namespace servesim
