#include "sim/study/sweep_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <ostream>

#include "sim/core/errors.h"
#include "sim/core/text.h"
#include "sim/study/json_file.h"
#include "sim/study/search_cost.h"
#include "sim/study/summary_json.h"
#include "sim/study/sweep_fingerprint.h"

namespace servesim {

namespace {

using ojson = nlohmann::ordered_json;
constexpr int kFormatVersion = 1;

// The point index of a row (checked by sweep_table_from_json or set by make_sweep_row).
std::int64_t point_of(const ojson& row) { return row.at("point").get<std::int64_t>(); }

ojson pick_fields(const SummaryBlock& block, const std::vector<std::string>& fields) {
  const ojson all = summary_block_to_json(block);
  ojson out = ojson::object();
  for (const auto& f : fields) out[f] = all.contains(f) ? all[f] : ojson(nullptr);
  return out;
}

// True when the summary's 0/1 field `flag` is set.
bool row_flag(const ojson& summary, const char* flag) {
  return summary.is_object() && summary.contains(flag) && summary[flag].is_number() && summary[flag].get<double>() != 0;
}

[[noreturn]] void bad(const std::string& path, const std::string& key, const std::string& msg) {
  throw ConfigError(path, 0, key, msg);
}

const ojson& need(const ojson& obj, const char* key, const std::string& path, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key)) bad(path, where + key, "missing; is this a sweep.json of servesim sweep?");
  return obj[key];
}

}  // namespace

const std::vector<std::string>& sweep_fields() {
  static const std::vector<std::string> kFields = {
      "completed",      "rejected",       "unfinished",         "duration",     "request_throughput",
      "output_throughput", "total_token_throughput",
      "mean_ttft_ms",   "p50_ttft_ms",    "p90_ttft_ms",        "p99_ttft_ms",
      "mean_tpot_ms",   "p50_tpot_ms",    "p90_tpot_ms",        "p99_tpot_ms",
      "mean_itl_ms",    "p50_itl_ms",     "p90_itl_ms",         "p99_itl_ms",
      "mean_e2el_ms",   "p50_e2el_ms",    "p90_e2el_ms",        "p99_e2el_ms",
      "mean_queue_ms",  "p99_queue_ms",   "prefix_cache_hit_rate", "slo_attainment", "goodput"};
  return kFields;
}

const std::vector<std::string>& sweep_overall_fields() {
  static const std::vector<std::string> kFields = [] {
    std::vector<std::string> f = sweep_fields();
    // Saturation is a property of the whole run (summary.json's top level), so classes lack it.
    const auto at = std::find(f.begin(), f.end(), "unfinished") + 1;
    f.insert(at, {"saturated", "saturated_by", "saturated_resource", "too_short_to_judge"});
    // Measured over the arrival window, so a run's drain does not dilute them: a run's own.
    const auto rate = std::find(f.begin(), f.end(), "request_throughput") + 1;
    f.insert(rate, {"sustained_offered_rate", "sustained_served_rate"});
    // What the whole cluster costs, set by the sweep (add_sweep_cost): a class has no price.
    f.insert(f.end(), {"cost_per_hour", "paid_per_1m_output_tokens"});
    return f;
  }();
  return kFields;
}

ojson axis_value_json(const std::string& text) {
  std::int64_t i = 0;
  const char* end = text.data() + text.size();
  if (auto [p, ec] = std::from_chars(text.data(), end, i); ec == std::errc() && p == end) return i;
  // strtod rather than from_chars<double>, which older libstdc++ lacks.
  char* stop = nullptr;
  const double d = std::strtod(text.c_str(), &stop);
  const bool plain = !text.empty() && text.find_first_of("xXnN") == std::string::npos;  // no hex, nan, inf
  if (plain && stop == text.c_str() + text.size() && std::isfinite(d)) return d;
  return text;
}

ojson make_sweep_row(std::size_t point, const std::vector<std::string>& axis_keys, const std::vector<std::string>& values,
                     const RunSummary* summary, const std::string& error) {
  ojson row = ojson::object();
  row["point"] = static_cast<std::int64_t>(point);
  ojson vals = ojson::object();
  for (std::size_t a = 0; a < axis_keys.size(); ++a) vals[axis_keys[a]] = axis_value_json(values[a]);
  row["values"] = std::move(vals);
  row["pareto"] = false;
  row["pareto_excluded"] = nullptr;
  row["error"] = summary ? ojson(nullptr) : ojson(error);
  if (!summary) {
    row["summary"] = nullptr;
    return row;
  }
  // The cost fields are the sweep's own (add_sweep_cost), not summary.json's.
  std::vector<std::string> fields;
  for (const auto& f : sweep_overall_fields())
    if (!is_cost_field(f)) fields.push_back(f);
  ojson s = pick_fields(summary->overall, fields);
  if (summary->classes.size() >= 2) {
    ojson classes = ojson::object();
    for (const auto& [name, block] : summary->classes) classes[name] = pick_fields(block, sweep_fields());
    s["classes"] = std::move(classes);
  }
  row["summary"] = std::move(s);
  return row;
}

bool is_cost_field(const std::string& field) { return field == "cost_per_hour" || field == "paid_per_1m_output_tokens"; }

std::vector<std::string> pareto_fields() {
  std::vector<std::string> out;
  for (const auto& f : sweep_overall_fields())
    if (f != "saturated_by") out.push_back(f);
  return out;
}

void add_sweep_cost(ojson& row, std::optional<double> cost_per_hour) {
  ojson& s = row["summary"];
  if (!s.is_object()) return;
  std::optional<double> per_million;
  if (cost_per_hour && s.contains("output_throughput") && s["output_throughput"].is_number())
    per_million = cost_per_million_tokens(*cost_per_hour, s["output_throughput"].get<double>());
  auto value = [](const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); };
  ojson out = ojson::object();
  auto put_cost = [&] {
    out["cost_per_hour"] = value(cost_per_hour);
    out["paid_per_1m_output_tokens"] = value(per_million);
  };
  for (const auto& [key, v] : s.items()) {
    if (key == "classes") put_cost();
    if (!is_cost_field(key)) out[key] = v;
  }
  if (!s.contains("classes")) put_cost();
  s = std::move(out);
}

// A saturated run's latencies describe a queue that was still growing (they grow with the
// run's length); a run too short to judge may be either side of saturation. Neither is a
// figure to rank, so such a row neither joins the front nor pushes others off.
std::string pareto_exclusion(const ojson& row) {
  const ojson& s = row["summary"];
  if (row_flag(s, "saturated")) return "saturated";
  if (row_flag(s, "too_short_to_judge")) return "too_short_to_judge";
  return "";
}

std::string pareto_exclusion_note(const SweepTable& table) {
  std::map<std::string, std::vector<std::int64_t>> by_reason;
  std::size_t n = 0;
  for (const auto& row : table.rows)
    if (const std::string why = pareto_exclusion(row); !why.empty()) {
      by_reason[why].push_back(point_of(row));
      ++n;
    }
  if (n == 0) return "";
  std::string note = std::to_string(n) + (n == 1 ? " point is" : " points are") +
                     " off the Pareto front because its figures cannot be ranked (pareto_excluded):";
  std::string sep = " ";
  for (const auto& [why, points] : by_reason) {
    note += sep + why + " (point" + (points.size() == 1 ? " " : "s ");
    for (std::size_t i = 0; i < points.size() && i < 20; ++i) note += (i ? ", " : "") + std::to_string(points[i]);
    if (points.size() > 20) note += ", ...";
    note += ")";
    sep = "; ";
  }
  return note;
}

void mark_pareto(SweepTable& table) {
  std::vector<std::vector<std::optional<double>>> values;
  for (const auto& row : table.rows) {
    std::vector<std::optional<double>> v;
    const ojson& s = row["summary"];
    const bool excluded = !pareto_exclusion(row).empty();
    for (const auto& o : table.objectives) {
      if (excluded) v.push_back(std::nullopt);  // off the front, dominating nothing
      else if (s.is_object() && s.contains(o.field) && s[o.field].is_number()) v.push_back(s[o.field].get<double>());
      else v.push_back(std::nullopt);
    }
    values.push_back(std::move(v));
  }
  const std::vector<bool> front = pareto_front(values, table.objectives);
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    table.rows[r]["pareto"] = static_cast<bool>(front[r]);
    const std::string why = pareto_exclusion(table.rows[r]);
    table.rows[r]["pareto_excluded"] = why.empty() ? ojson(nullptr) : ojson(why);
  }
}

ojson sweep_table_to_json(const SweepTable& table) {
  ojson j = ojson::object();
  j["servesim_sweep"] = kFormatVersion;
  j["scenario"] = table.scenario;
  j["mode"] = table.mode;
  j["axes"] = table.axes;
  j["points"] = table.points;
  if (table.shard) j["shard"] = std::to_string(table.shard->index) + "/" + std::to_string(table.shard->count);
  ojson objectives = ojson::array();
  for (const auto& o : table.objectives) objectives.push_back(objective_text(o));
  j["pareto"] = std::move(objectives);
  if (!table.defined_by.is_null()) j["defined_by"] = table.defined_by;
  if (!table.context.is_null()) j["context"] = table.context;
  j["rows"] = table.rows;
  return j;
}

void write_sweep_json(const SweepTable& table, std::ostream& out) {
  out << sweep_table_to_json(table).dump(2, ' ', false, ojson::error_handler_t::replace) << '\n';
}

void add_sweep_replicates(ojson& row, const ReplicateIntervals& replicates) {
  ojson r = ojson::object();
  r["n"] = replicates.n;
  r["seeds"] = replicates.seeds;
  for (const auto& f : sweep_overall_fields())
    if (const FigureInterval* i = replicates.find(f)) r[f] = {{"mean", i->mean}, {"lo", i->lo}, {"hi", i->hi}};
  row["replicates"] = std::move(r);
}

void write_sweep_csv(const SweepTable& table, std::ostream& out) {
  std::vector<std::string> classes;  // in order of first appearance: an axis may rename them
  for (const auto& row : table.rows) {
    const ojson& s = row["summary"];
    if (!s.is_object() || !s.contains("classes")) continue;
    for (const auto& [name, block] : s["classes"].items())
      if (std::find(classes.begin(), classes.end(), name) == classes.end()) classes.push_back(name);
  }
  std::vector<std::string> header = {"point"};
  header.insert(header.end(), table.axes.begin(), table.axes.end());
  header.push_back("pareto");
  header.push_back("pareto_excluded");
  header.push_back("error");
  for (const auto& f : sweep_overall_fields()) header.push_back(f);
  // The fields some row has an interval for, in column order.
  std::vector<std::string> intervals;
  for (const auto& f : sweep_overall_fields())
    for (const auto& row : table.rows)
      if (row.contains("replicates") && row["replicates"].contains(f)) {
        intervals.push_back(f);
        break;
      }
  for (const auto& f : intervals) {
    header.push_back(f + "_lo");
    header.push_back(f + "_hi");
  }
  for (const auto& c : classes)
    for (const auto& f : sweep_fields()) header.push_back("classes." + c + "." + f);
  for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << table_csv_cell(header[i]);
  out << '\n';

  for (const auto& row : table.rows) {
    std::vector<ojson> cells = {row["point"]};
    for (const auto& a : table.axes) cells.push_back(row["values"].value(a, ojson(nullptr)));
    cells.push_back(row["pareto"]);
    cells.push_back(row.value("pareto_excluded", ojson(nullptr)));
    cells.push_back(row["error"]);
    const ojson& s = row["summary"];
    const bool has = s.is_object();
    for (const auto& f : sweep_overall_fields()) cells.push_back(has ? s.value(f, ojson(nullptr)) : ojson(nullptr));
    for (const auto& f : intervals) {
      const bool hr = row.contains("replicates") && row["replicates"].contains(f);
      cells.push_back(hr ? row["replicates"][f]["lo"] : ojson(nullptr));
      cells.push_back(hr ? row["replicates"][f]["hi"] : ojson(nullptr));
    }
    for (const auto& c : classes) {
      const bool hc = has && s.contains("classes") && s["classes"].contains(c);
      for (const auto& f : sweep_fields()) cells.push_back(hc ? s["classes"][c].value(f, ojson(nullptr)) : ojson(nullptr));
    }
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << table_csv_cell(cells[i]);
    out << '\n';
  }
}

bool is_sweep_table_json(const ojson& json) { return json.is_object() && json.contains("servesim_sweep"); }

SweepTable sweep_table_from_json(const ojson& j, const std::string& path) {
  if (!is_sweep_table_json(j)) bad(path, "servesim_sweep", "missing; this is not a sweep.json of servesim sweep");
  if (j["servesim_sweep"] != kFormatVersion)
    bad(path, "servesim_sweep", "format version " + j["servesim_sweep"].dump() + " is not the supported 1");
  SweepTable t;
  try {
    t.scenario = need(j, "scenario", path, "").get<std::string>();
    t.mode = need(j, "mode", path, "").get<std::string>();
    t.axes = need(j, "axes", path, "").get<std::vector<std::string>>();
    t.points = need(j, "points", path, "").get<std::int64_t>();
    if (j.contains("shard")) t.shard = parse_shard(j["shard"].get<std::string>());
    t.objectives.clear();
    for (const auto& o : need(j, "pareto", path, ""))
      for (auto& parsed : parse_objectives(o.get<std::string>(), path, "pareto")) t.objectives.push_back(parsed);
    if (j.contains("defined_by")) {
      if (!j["defined_by"].is_object()) bad(path, "defined_by", "must be an object (what defines the sweep)");
      t.defined_by = j["defined_by"];
    }
    if (j.contains("context")) {
      if (!j["context"].is_object()) bad(path, "context", "must be an object (what the scenario simulates)");
      t.context = j["context"];
    }
  } catch (const nlohmann::json::exception& e) {
    bad(path, "", std::string("a header field has the wrong type: ") + e.what());
  }
  const ojson& rows = need(j, "rows", path, "");
  if (!rows.is_array()) bad(path, "rows", "must be a list");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const ojson& row = rows[r];
    const std::string where = "rows." + std::to_string(r) + ".";
    const ojson& point = need(row, "point", path, where);
    if (!point.is_number_integer() || point.get<std::int64_t>() < 0 || point.get<std::int64_t>() >= t.points)
      bad(path, where + "point", "must be a whole number in [0, points)");
    const ojson& values = need(row, "values", path, where);
    for (const auto& a : t.axes)
      if (!values.is_object() || !values.contains(a)) bad(path, where + "values." + a, "missing");
    if (!need(row, "pareto", path, where).is_boolean()) bad(path, where + "pareto", "must be true or false");
    const ojson& error = need(row, "error", path, where);
    const ojson& summary = need(row, "summary", path, where);
    if (!(error.is_null() || error.is_string())) bad(path, where + "error", "must be null or text");
    if (!(summary.is_null() || summary.is_object())) bad(path, where + "summary", "must be null or an object");
    t.rows.push_back(row);
  }
  std::stable_sort(t.rows.begin(), t.rows.end(), [](const ojson& a, const ojson& b) { return point_of(a) < point_of(b); });
  for (std::size_t r = 1; r < t.rows.size(); ++r)
    if (point_of(t.rows[r]) == point_of(t.rows[r - 1]))
      bad(path, "rows", "point " + std::to_string(point_of(t.rows[r])) + " appears twice");
  return t;
}

SweepTable read_sweep_table(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec)) file = (std::filesystem::path(path) / "sweep.json").string();
  return sweep_table_from_json(read_json_file(file), file);
}

SweepTable merge_sweep_tables(const std::vector<SweepTable>& tables, const std::vector<std::string>& paths,
                              bool allow_missing, std::vector<std::string>* warnings) {
  if (tables.empty()) throw ConfigError("", 0, "", "nothing to merge: give one or more sweep.json files");
  const SweepTable& first = tables.front();
  // The shards of one sweep share its header (scenario, mode, axes, points, objectives,
  // context; compared below): the first table's, without its shard, rows or fingerprint.
  SweepTable out = first;
  out.shard.reset();
  out.defined_by = nullptr;
  out.rows.clear();
  // What defines the sweep: the first table's fingerprint, when every table has one.
  std::vector<std::string> unchecked;
  for (std::size_t i = 0; i < tables.size(); ++i)
    if (tables[i].defined_by.is_null()) unchecked.push_back(paths[i]);
  if (unchecked.empty()) {
    out.defined_by = first.defined_by;
  } else if (warnings) {
    std::string names;
    for (const auto& p : unchecked) names += (names.empty() ? "" : ", ") + p;
    warnings->push_back("cannot check that the tables are shards of one sweep (same scenario text, axis values, --set, "
                        "seed and replicates): " + names + (unchecked.size() == 1 ? " has" : " have") +
                        " no defined_by (written by a servesim without it); only the scenario name, mode, axis keys, "
                        "point count and objectives were compared");
  }
  std::map<std::int64_t, std::size_t> owner;  // point -> table it came from
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const SweepTable& t = tables[i];
    auto differs = [&](const char* key, const std::string& mine, const std::string& theirs) {
      if (mine != theirs)
        throw ConfigError(paths[i], 0, key,
                          "is '" + mine + "' but '" + theirs + "' in " + paths[0] + ": not shards of one sweep");
    };
    differs("scenario", t.scenario, first.scenario);
    differs("mode", t.mode, first.mode);
    differs("axes", ojson(t.axes).dump(), ojson(first.axes).dump());
    differs("points", std::to_string(t.points), std::to_string(first.points));
    std::string mine, theirs;
    for (const auto& o : t.objectives) mine += objective_text(o) + " ";
    for (const auto& o : first.objectives) theirs += objective_text(o) + " ";
    differs("pareto", mine, theirs);
    if (unchecked.empty()) {
      const auto diffs = fingerprint_differences(t.defined_by, first.defined_by);
      if (!diffs.empty()) {
        std::string what;
        for (const auto& d : diffs) what += (what.empty() ? "" : "; ") + d;
        throw ConfigError(paths[i], 0, "defined_by",
                          "differs from " + paths[0] + " (\"here\" is this file, \"there\" that one): " + what +
                              ": not shards of one sweep");
      }
    }
    for (const auto& row : t.rows) {
      const auto [it, fresh] = owner.emplace(point_of(row), i);
      if (!fresh)
        throw ConfigError(paths[i], 0, "rows",
                          "point " + std::to_string(point_of(row)) + " is also in " + paths[it->second]);
      out.rows.push_back(row);
    }
  }
  std::sort(out.rows.begin(), out.rows.end(), [](const ojson& a, const ojson& b) { return point_of(a) < point_of(b); });
  if (!allow_missing && static_cast<std::int64_t>(out.rows.size()) != out.points) {
    std::string missing;
    int listed = 0;
    for (std::int64_t p = 0; p < out.points && listed < 10; ++p)
      if (!owner.count(p)) missing += (listed++ ? ", " : "") + std::to_string(p);
    throw ConfigError("", 0, "rows",
                      std::to_string(out.points - static_cast<std::int64_t>(out.rows.size())) + " of " +
                          std::to_string(out.points) + " points are in no table (first: " + missing +
                          "); merge every shard, or pass --allow-missing");
  }
  mark_pareto(out);
  return out;
}

std::string table_csv_cell(const ojson& v) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  return csv_cell(v.is_string() ? v.get<std::string>() : v.dump());
}

}  // namespace servesim
