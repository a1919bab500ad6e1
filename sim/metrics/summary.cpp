#include "sim/metrics/summary.h"

#include <algorithm>
#include <limits>

#include "sim/core/assert.h"

namespace servesim {

double SummaryBlock::get(const std::string& name) const {
  for (const auto& [field, value] : fields) {
    if (field == name) return value;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

bool SummaryBlock::has(const std::string& name) const {
  return std::any_of(fields.begin(), fields.end(),
                     [&](const auto& field) { return field.first == name; });
}

void SummaryBlock::set_label(const std::string& name, const std::string& value, const std::string& after) {
  for (auto& l : labels)
    if (l.name == name) {
      l.value = value;
      l.after = after;
      return;
    }
  labels.push_back(Label{name, value, after});
}

std::string SummaryBlock::label(const std::string& name) const {
  for (const auto& l : labels)
    if (l.name == name) return l.value;
  return "";
}

void SummaryBlock::set(const std::string& name, double value) {
  for (auto& [field, old_value] : fields) {
    if (field == name) {
      old_value = value;
      return;
    }
  }
  fields.emplace_back(name, value);
}

void SummaryBlock::set_count(const std::string& name, std::int64_t value) {
  constexpr std::int64_t kExactLimit = std::int64_t{1} << 53;
  SS_ASSERT(value < kExactLimit && value > -kExactLimit, "count too large to hold exactly");
  set(name, static_cast<double>(value));
  if (!is_count(name)) count_fields.push_back(name);
}

bool SummaryBlock::is_count(const std::string& name) const {
  return std::find(count_fields.begin(), count_fields.end(), name) != count_fields.end();
}

}  // namespace servesim
