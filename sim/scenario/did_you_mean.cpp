#include "sim/scenario/did_you_mean.h"

#include <algorithm>
#include <cctype>

namespace servesim {

namespace {

char fold(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Largest distance still taken for a typo: short words need a near-exact match, or every
// two-letter key would "suggest" every other.
std::size_t typo_allowance(std::size_t length) {
  if (length <= 3) return 1;
  if (length <= 8) return 2;
  return 3;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  // Three rows suffice for the adjacent-swap rule, which looks two rows back.
  std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
  for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t substitution = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[m];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& choices) {
  std::optional<std::string> best;
  std::size_t best_distance = typo_allowance(word.size()) + 1;
  for (const std::string& choice : choices) {
    const std::size_t d = edit_distance(word, choice);
    if (d < best_distance) {
      best_distance = d;
      best = choice;
    }
  }
  return best;
}

std::string join_choices(const std::vector<std::string>& choices) {
  std::string out;
  for (const std::string& c : choices) {
    if (!out.empty()) out += ", ";
    out += c;
  }
  return out;
}

std::string unknown_choice_message(std::string_view what, std::string_view plural,
                                   std::string_view word, const std::vector<std::string>& choices) {
  std::string out = "unknown " + std::string(what) + " '" + std::string(word) + "'";
  if (auto match = closest_match(word, choices)) return out + "; did you mean '" + *match + "'?";
  if (choices.empty()) return out;
  return out + "; valid " + std::string(plural) + ": " + join_choices(choices);
}

}  // namespace servesim
