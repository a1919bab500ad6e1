#pragma once
// "Did you mean ...?" for misspelt keys and names. A user who writes `polcy:` should be told
// `policy`, not handed the whole list; when nothing is close, the list is the best help.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servesim {

// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
// adjacent characters each cost 1, compared case-insensitively ("raet" -> "rate" is 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The choice nearest to `word` if it is close enough to be a likely typo: distance at most
// 1 for words of up to 3 letters, 2 up to 8 letters, 3 beyond. Ties go to the earlier choice.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& choices);

// "a, b, c" in the given order.
std::string join_choices(const std::vector<std::string>& choices);

// "unknown WHAT 'word'; did you mean 'x'?" or, with no close choice,
// "unknown WHAT 'word'; valid WHATs: a, b, c" (`plural` names the list, e.g. "keys").
std::string unknown_choice_message(std::string_view what, std::string_view plural,
                                   std::string_view word, const std::vector<std::string>& choices);

}  // namespace servesim
