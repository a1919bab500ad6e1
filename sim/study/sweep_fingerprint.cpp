#include "sim/study/sweep_fingerprint.h"

#include <cstdio>
#include <fstream>
#include <iterator>

#include "sim/core/errors.h"

namespace servesim {

using ojson = nlohmann::ordered_json;

std::string file_fnv1a64(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, 0, "", "cannot be read to fingerprint the sweep");
  // FNV-1a 64-bit: offset basis 14695981039346656037, prime 1099511628211 (the FNV spec,
  // http://www.isthe.com/chongo/tech/comp/fnv/).
  std::uint64_t h = 14695981039346656037ull;
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    h ^= static_cast<unsigned char>(*it);
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

ojson sweep_fingerprint(const std::string& scenario_file, const std::vector<SweepAxis>& axes, SweepMode mode,
                        const std::vector<std::string>& sets, std::optional<std::uint64_t> seed, int replicates) {
  ojson f = ojson::object();
  f["scenario_fnv1a64"] = file_fnv1a64(scenario_file);
  f["mode"] = sweep_mode_name(mode);
  ojson a = ojson::object();
  for (const auto& axis : axes) a[axis.key] = axis.values;
  f["axes"] = std::move(a);
  f["set"] = sets;
  f["seed"] = seed ? ojson(*seed) : ojson(nullptr);
  f["replicates"] = replicates;
  return f;
}

std::vector<std::string> fingerprint_differences(const ojson& here, const ojson& there) {
  std::vector<std::string> out;
  auto text = [](const ojson* v) { return v ? v->dump() : std::string("absent"); };
  for (const auto& [key, v] : here.items()) {
    const ojson* other = there.contains(key) ? &there[key] : nullptr;
    if (!other || *other != v) out.push_back(key + " is " + text(&v) + " here but " + text(other) + " there");
  }
  for (const auto& [key, v] : there.items())
    if (!here.contains(key)) out.push_back(key + " is absent here but " + v.dump() + " there");
  return out;
}

}  // namespace servesim
