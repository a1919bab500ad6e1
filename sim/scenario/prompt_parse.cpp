#include "sim/scenario/prompt_parse.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/distribution_parse.h"
#include "sim/workload/prompt_structure.h"

namespace servesim {
namespace {

const std::vector<std::string> kSegmentKinds = {"shared", "pool", "unique"};
const std::vector<std::string> kSegmentKeys = {"shared", "pool", "unique", "tokens", "count", "zipf"};
const std::vector<std::string> kSessionKeys = {"turns", "think_time", "new_input", "max_history_tokens"};

// The keys each kind of segment reads.
std::vector<std::string> keys_of(PromptSegmentSpec::Kind kind) {
  switch (kind) {
    case PromptSegmentSpec::Kind::shared:
      return {"shared", "tokens"};
    case PromptSegmentSpec::Kind::pool:
      return {"pool", "count", "zipf", "tokens"};
    case PromptSegmentSpec::Kind::unique:
      return {"unique", "tokens"};
  }
  return {};
}

PromptSegmentSpec parse_segment(const Field& f) {
  if (!f.is_map()) {
    f.fail("expected a segment like {shared: NAME, tokens: N}, {pool: NAME, count: N, tokens: DIST} or "
           "{unique: true, tokens: DIST}, got " + f.describe());
  }
  f.expect_map(kSegmentKeys);
  std::vector<std::string> kinds;
  for (const std::string& k : kSegmentKinds)
    if (f.has(k)) kinds.push_back(k);
  if (kinds.size() != 1) {
    f.fail(kinds.empty() ? "a segment needs one of 'shared', 'pool' or 'unique'"
                         : "a segment is one of 'shared', 'pool' or 'unique', not " + join_choices(kinds));
  }
  PromptSegmentSpec seg;
  const Field head = *f.get(kinds.front());
  if (kinds.front() == "shared") {
    seg.kind = PromptSegmentSpec::Kind::shared;
    seg.name = head.as_string();
  } else if (kinds.front() == "pool") {
    seg.kind = PromptSegmentSpec::Kind::pool;
    seg.name = head.as_string();
  } else {
    seg.kind = PromptSegmentSpec::Kind::unique;
    if (!head.as_bool()) head.fail("write 'unique: true' (a segment that is not unique is 'shared' or 'pool')");
  }
  if (seg.kind != PromptSegmentSpec::Kind::unique && seg.name.empty()) head.fail("the segment's name is empty");
  const std::vector<std::string> used = keys_of(seg.kind);
  for (const std::string& k : f.keys()) {
    if (std::find(used.begin(), used.end(), k) == used.end()) {
      f.get(k)->fail_at_key("'" + k + "' does not apply to a '" + kinds.front() + "' segment (it takes: " +
                            join_choices(used) + ")");
    }
  }
  const Field tokens = f.require("tokens");
  seg.tokens = parse_distribution(tokens, DistUnit::tokens);
  if (seg.kind == PromptSegmentSpec::Kind::shared) {
    // Identical in every request, so one length.
    if (seg.tokens.kind != DistSpec::Kind::fixed) tokens.fail("a shared segment has one length: give a number");
    if (seg.tokens.a < 1 || seg.tokens.a != std::floor(seg.tokens.a)) {
      tokens.fail("a shared segment needs a whole number of tokens >= 1, got " + format_number(seg.tokens.a));
    }
  }
  if (seg.kind == PromptSegmentSpec::Kind::pool) {
    const Field count = f.require("count");
    seg.count = count.int_at_least(1);
    if (seg.count > kMaxPoolDocuments) {
      count.fail("must be at most " + std::to_string(kMaxPoolDocuments) + ", got " + std::to_string(seg.count));
    }
    seg.zipf = 1.0;
    if (auto zipf = f.get("zipf")) {
      seg.zipf = zipf->non_negative_double();
      if (seg.zipf > 100) zipf->fail("must be at most 100, got " + format_number(seg.zipf));
    }
  }
  return seg;
}

}  // namespace

std::vector<PromptSegmentSpec> parse_prompt(const Field& f) {
  if (!f.is_list()) f.fail("expected a list of segments (each item starts with '- '), got " + f.describe());
  std::vector<PromptSegmentSpec> segments;
  for (const Field& item : f.items()) segments.push_back(parse_segment(item));
  if (segments.empty()) f.fail("the prompt has no segments");
  return segments;
}

SessionSpec parse_session(const Field& f) {
  f.expect_map(kSessionKeys);
  SessionSpec s;
  const Field turns = f.require("turns");
  s.turns = parse_distribution(turns, DistUnit::tokens);
  if (s.turns.kind == DistSpec::Kind::fixed && s.turns.a < 1) {
    turns.fail("a session needs at least 1 turn, got " + format_number(s.turns.a));
  }
  s.new_input = parse_distribution(f.require("new_input"), DistUnit::tokens);
  if (auto think = f.get("think_time")) s.think_time_s = parse_distribution(*think, DistUnit::seconds);
  if (auto history = f.get("max_history_tokens")) s.max_history_tokens = history->int_at_least(1);
  return s;
}

std::string describe_prompt(const std::vector<PromptSegmentSpec>& segments) {
  std::string out;
  for (const PromptSegmentSpec& seg : segments) {
    if (!out.empty()) out += " + ";
    switch (seg.kind) {
      case PromptSegmentSpec::Kind::shared:
        out += "shared " + seg.name + " (" + format_number(seg.tokens.a) + ")";
        break;
      case PromptSegmentSpec::Kind::pool:
        out += "pool " + seg.name + " (" + std::to_string(seg.count) + " documents, zipf " + format_number(seg.zipf) +
               ", " + describe_distribution(seg.tokens, DistUnit::tokens) + ")";
        break;
      case PromptSegmentSpec::Kind::unique:
        out += "unique " + describe_distribution(seg.tokens, DistUnit::tokens);
        break;
    }
  }
  return out;
}

std::string describe_session(const SessionSpec& s) {
  std::string out = "turns " + describe_distribution(s.turns, DistUnit::tokens);
  if (s.think_time_s) out += ", think " + describe_distribution(*s.think_time_s, DistUnit::seconds);
  out += ", new input " + describe_distribution(s.new_input, DistUnit::tokens);
  if (s.max_history_tokens) out += ", history at most " + std::to_string(*s.max_history_tokens) + " tokens";
  return out;
}

}  // namespace servesim
