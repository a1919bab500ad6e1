#include "sim/report/console_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace servesim {

namespace {

struct Column {
  std::string title;
  std::string field;  // SummaryBlock field it shows
  int decimals;       // -1: an integer count
  double scale;       // multiplies the field (100 for a percentage)
};

const std::array<Column, 12> kColumns{{
    {"completed", "completed", -1, 1.0},
    {"rejected", "rejected", -1, 1.0},
    {"req/s", "request_throughput", 2, 1.0},
    {"out tok/s", "output_throughput", 1, 1.0},
    {"TTFT p50", "p50_ttft_ms", 1, 1.0},
    {"TTFT p99", "p99_ttft_ms", 1, 1.0},
    {"ITL p50", "p50_itl_ms", 2, 1.0},
    {"ITL p99", "p99_itl_ms", 2, 1.0},
    {"TPOT p50", "p50_tpot_ms", 2, 1.0},
    {"E2E p50", "p50_e2el_ms", 1, 1.0},
    {"E2E p99", "p99_e2el_ms", 1, 1.0},
    {"prefix hit %", "prefix_cache_hit_rate", 1, 100.0},
}};

std::string cell_text(const SummaryBlock& block, const Column& column) {
  const double value = block.get(column.field);
  if (!std::isfinite(value)) return "-";
  char buffer[64];
  if (column.decimals < 0) {
    std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(std::llround(value)));
  } else {
    std::snprintf(buffer, sizeof buffer, "%.*f", column.decimals, value * column.scale);
  }
  return buffer;
}

using TextRow = std::vector<std::string>;

// The statistic of an objective as people read it: "p99", "p99.9", "max" for `every`
// (it bounds the slowest one).
std::string statistic_words(const std::string& objective) {
  const std::string stat = objective.substr(objective.find('_') + 1);
  return stat == "every" ? "max" : stat == "p999" ? "p99.9" : stat;
}

// "TPOT p99", "ITL max": the column title of an SLO's statistic.
std::string statistic_title(const std::string& objective) {
  const std::string metric = objective.substr(0, objective.find('_'));
  const std::string name = metric == "e2el" ? "E2E" : metric == "ttft" ? "TTFT" : metric == "tpot" ? "TPOT" : "ITL";
  return name + " " + statistic_words(objective);
}

// The fixed columns, then the statistic of every stated SLO objective that they lack (an
// SLO on TPOT p99 adds "TPOT p99"), so the table shows the figure the verdict judges.
std::vector<Column> table_columns(const RunSummary& summary) {
  std::vector<Column> columns(kColumns.begin(), kColumns.end());
  for (const auto& [name, block] : summary.classes)
    for (const SloObjectiveVerdict& v : block.slo_verdict) {
      const bool shown = std::any_of(columns.begin(), columns.end(), [&](const Column& c) { return c.field == v.field; });
      if (!shown) columns.push_back({statistic_title(v.objective), v.field, 2, 1.0});
    }
  return columns;
}

TextRow make_row(const std::string& label, const SummaryBlock& block, const std::vector<Column>& columns) {
  TextRow row{label};
  for (const Column& column : columns) row.push_back(cell_text(block, column));
  return row;
}

// Whether some cell of the table (past the header) reads "-": a figure without samples.
bool has_absent_cell(const std::vector<TextRow>& rows) {
  for (std::size_t r = 1; r < rows.size(); ++r)
    if (std::find(rows[r].begin() + 1, rows[r].end(), "-") != rows[r].end()) return true;
  return false;
}

void print_table(const std::vector<TextRow>& rows, std::ostream& out) {
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const TextRow& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const TextRow& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string padding(widths[i] - row[i].size(), ' ');
      // Labels read left-aligned, numbers right-aligned so their digits line up.
      if (i == 0) out << row[i] << padding;
      else out << "  " << padding << row[i];
    }
    out << '\n';
  }
}

TextRow header_row(const char* first, const std::vector<Column>& columns) {
  TextRow row{first};
  for (const Column& column : columns) row.emplace_back(column.title);
  return row;
}

double group_field(const SummaryBlock& block, const char* group, const char* field) {
  for (const FieldGroup& g : block.objects)
    if (g.name == group)
      for (const auto& [name, value] : g.fields)
        if (name == field) return value;
  return 0;
}

// With cluster.energy (docs/energy.md): the fleet's energy, power and price, one line.
void print_energy(const SummaryBlock& all, std::ostream& out) {
  char line[256];
  for (const FieldGroup& g : all.objects) {
    if (g.name != "energy") continue;
    auto get = [&](const char* name) {
      for (const auto& [n, v] : g.fields)
        if (n == name) return v;
      return std::nan("");
    };
    std::snprintf(line, sizeof line, "energy: %.4g kWh, mean %.4g W, peak %.4g W", get("energy_kwh"), get("mean_power_w"),
                  get("peak_power_w"));
    out << line;
    if (std::isfinite(get("energy_per_output_token_j"))) {
      std::snprintf(line, sizeof line, ", %.4g J per output token", get("energy_per_output_token_j"));
      out << line;
    }
    if (std::isfinite(get("energy_cost_usd"))) {
      std::snprintf(line, sizeof line, ", $%.4f", get("energy_cost_usd"));
      out << line;
    }
    out << "\n";
  }
}

// Where the time went, goodput, cost and utilisation of the whole run (docs/metrics.md);
// printed only when the summary has them.
void print_accounting(const SummaryBlock& all, std::ostream& out) {
  char line[256];
  if (all.get("mean_ttft_ms") > 0) {
    auto t = [&](const char* f) { return group_field(all, "ttft_attribution", f); };
    std::snprintf(line, sizeof line,
                  "\nTTFT mean %.2f ms = queue %.2f + own prefill %.2f + behind other work %.2f "
                  "(in its steps %.2f, between them %.2f) + preemption %.2f + overhead %.2f + front end %.2f\n",
                  all.get("mean_ttft_ms"), t("queue_ms"), t("prefill_compute_ms"), t("batch_share_ms") + t("stall_ms"),
                  t("batch_share_ms"), t("stall_ms"), t("preemption_ms") + t("kv_transfer_ms"), t("overhead_ms"),
                  t("frontend_ms"));
    out << line;
  }
  if (all.get("mean_itl_ms") > 0) {
    auto d = [&](const char* f) { return group_field(all, "itl_attribution", f); };
    std::snprintf(line, sizeof line,
                  "ITL mean %.2f ms = decode %.2f + prefill interference %.2f + stalls %.2f + preemption %.2f "
                  "+ overhead %.2f\n",
                  all.get("mean_itl_ms"), d("decode_compute_ms"), d("prefill_interference_ms"), d("stall_ms"),
                  d("preemption_ms"), d("overhead_ms"));
    out << line;
  }
  if (all.has("slo_met")) {
    std::snprintf(line, sizeof line, "SLO goodput: %lld requests met every SLO of their class (%.1f%%), %.3f req/s\n",
                  static_cast<long long>(std::llround(all.get("slo_met"))), 100 * all.get("slo_attainment"),
                  all.get("goodput"));
    out << line;
  }
  if (all.get("cost_usd") > 0) {
    // A price per unit of nothing (no output tokens, nothing cached; summary.json writes 0)
    // is shown as "-": "$0.0000 per 1M output" would read as free.
    auto usd = [&](const char* field, const char* units, int digits) {
      const double v = all.get(field);
      if (!std::isfinite(v) || all.get(units) <= 0) return std::string("-");
      char cell[48];
      std::snprintf(cell, sizeof cell, "$%.*f", digits, v);
      return std::string(cell);
    };
    out << "cost: " << usd("cost_per_1m_input_tokens", "uncached_input_tokens", 4) << " per 1M input tokens, "
        << usd("cost_per_1m_cached_input_tokens", "cached_input_tokens", 4) << " per 1M cached, "
        << usd("cost_per_1m_output_tokens", "total_output_tokens", 4) << " per 1M output; "
        << usd("cost_per_request", "completed", 6) << " per request\n";
  }
  // What the fleet was paid for, idle time included (docs/metrics.md, "Fleet").
  if (all.has("gpu_hours")) {
    if (all.has("fleet_cost_usd")) {
      std::snprintf(line, sizeof line, "fleet: %.4g GPU-hours paid, $%.2f\n", all.get("gpu_hours"),
                    all.get("fleet_cost_usd"));
    } else {
      std::snprintf(line, sizeof line, "fleet: %.4g GPU-hours paid; no cost: some pool's hardware has no price_per_gpu_hour\n",
                    all.get("gpu_hours"));
    }
    out << line;
  }
  print_energy(all, out);
  if (all.get("mfu_prefill") > 0 || all.get("mbu_decode") > 0) {
    std::snprintf(line, sizeof line, "utilisation: MFU prefill %.1f%% decode %.1f%%; memory bandwidth prefill %.1f%% decode %.1f%%\n",
                  100 * all.get("mfu_prefill"), 100 * all.get("mfu_decode"), 100 * all.get("mbu_prefill"),
                  100 * all.get("mbu_decode"));
    out << line;
  }
}

// A duration as an SLO reads: "812.3 ms", "1.43 s". It keeps digits until it reads
// differently from `other_ms`, so a miss never prints as "1 s > 1 s".
std::string duration_text(double ms, double other_ms) {
  auto format = [](double v, int digits) {
    char buffer[64];
    if (v >= 1000) std::snprintf(buffer, sizeof buffer, "%.*g s", digits, v / 1000);
    else std::snprintf(buffer, sizeof buffer, "%.*g ms", digits, v);
    return std::string(buffer);
  };
  std::string text = format(ms, 4);
  for (int digits = 5; digits <= 17 && ms != other_ms && text == format(other_ms, digits - 1); ++digits)
    text = format(ms, digits);
  return text;
}

// "ttft p99 1.43 s > 1 s", "itl max 61.2 ms <= 100 ms" (`every` bounds the slowest gap).
std::string objective_text(const SloObjectiveVerdict& v, bool completed_any) {
  const std::string name = v.objective.substr(0, v.objective.find('_')) + " " + statistic_words(v.objective);
  if (!completed_any) return name + ": no request completed";
  if (!std::isfinite(v.value_ms)) return name + ": no samples (cannot miss)";
  return name + " " + duration_text(v.value_ms, v.target_ms) + (v.met ? " <= " : " > ") +
         duration_text(v.target_ms, v.value_ms);
}

// The verdict on each class's SLO (summary.json's slo_verdict, docs/metrics.md): one line
// per class when several state one, then the run's in one line, "SLO: met (...)" or
// "SLO: missed: ttft p99 1.43 s > 1 s". The figures are over completed requests; a class
// with rejected or unfinished ones says how many the figures leave out.
void print_slo_verdict(const RunSummary& summary, std::ostream& out) {
  struct Judged {
    std::string name;
    std::vector<std::string> met, missed;
    std::string left_out;
  };
  std::vector<Judged> judged;
  for (const auto& [name, block] : summary.classes) {
    if (block.slo_verdict.empty()) continue;
    Judged j{name, {}, {}, ""};
    const bool completed_any = block.get("completed") > 0;
    for (const SloObjectiveVerdict& v : block.slo_verdict)
      (v.met ? j.met : j.missed).push_back(objective_text(v, completed_any));
    const long long rejected = std::llround(block.get("rejected")), unfinished = std::llround(block.get("unfinished"));
    if (completed_any && rejected + unfinished > 0)
      j.left_out = "; the figures are over its " + std::to_string(std::llround(block.get("completed"))) +
                   " completed requests, not its " + std::to_string(rejected) + " rejected and " +
                   std::to_string(unfinished) + " unfinished";
    judged.push_back(std::move(j));
  }
  if (judged.empty()) return;
  auto join = [](const std::vector<std::string>& items, const std::string& prefix) {
    std::string text;
    for (const auto& item : items) text += (text.empty() ? "" : ", ") + prefix + item;
    return text;
  };
  auto verdict = [&](const Judged& j, const std::string& prefix) {
    if (j.missed.empty()) return "met (" + join(j.met, prefix) + ")";
    return "missed: " + join(j.missed, prefix) + (j.met.empty() ? "" : " (met: " + join(j.met, prefix) + ")");
  };
  const bool several = summary.classes.size() > 1;
  if (several) {
    out << "SLO per class, each on its own figures:\n";
    for (const Judged& j : judged) out << "  " << j.name << ": " << verdict(j, "") << j.left_out << '\n';
    std::vector<std::string> missed;
    for (const Judged& j : judged)
      for (const auto& m : j.missed) missed.push_back(j.name + " " + m);
    out << "SLO: " << (missed.empty() ? "met by every class" : "missed: " + join(missed, "")) << '\n';
  } else {
    out << "SLO: " << verdict(judged.front(), "") << judged.front().left_out << '\n';
  }
}

// Lengths the workload changed on the way from the distributions written (summary.json's
// clamped_input and clamped_output, docs/workload.md), per class, only where there are any:
// a distribution that often falls below a token runs a different workload than it reads.
void print_clamped_lengths(const RunSummary& summary, std::ostream& out) {
  bool header = false;
  for (const auto& [name, block] : summary.classes) {
    if (!block.has("clamped_input") || !block.has("clamped_output")) continue;
    const long long input = std::llround(block.get("clamped_input"));
    const long long output = std::llround(block.get("clamped_output"));
    if (input <= 0 && output <= 0) continue;
    if (!header) {
      out << "\nlengths clamped (prompts raised to 1 token, outputs to 0, or held to the distribution's min/max):\n";
      header = true;
    }
    const long long requests = std::llround(block.get("completed") + block.get("rejected") + block.get("unfinished"));
    out << "  " << name << ": " << input << " of " << requests << " prompt lengths, " << output << " of " << requests
        << " output lengths\n";
  }
}

}  // namespace

void print_console_report(const RunSummary& summary, std::ostream& out) {
  char line[128];
  std::snprintf(line, sizeof line, "simulated duration %.3f s; latencies in ms\n",
                summary.overall.get("duration"));
  out << line;
  // Present only when the scenario has a warm-up (MetricsRecorder::summarize).
  if (summary.overall.has("warmup_excluded")) {
    out << "warm-up: " << std::llround(summary.overall.get("warmup_excluded"))
        << " requests left out of every figure below; the duration above is the span after it\n";
  }

  const std::vector<Column> columns = table_columns(summary);
  std::vector<TextRow> rows{header_row("class", columns)};
  for (const auto& [name, block] : summary.classes) rows.push_back(make_row(name, block, columns));
  rows.push_back(make_row("overall", summary.overall, columns));
  print_table(rows, out);

  bool absent = has_absent_cell(rows);
  if (!summary.pools.empty()) {
    out << '\n';
    std::vector<TextRow> pool_rows{header_row("pool", columns)};
    for (const auto& [name, block] : summary.pools) pool_rows.push_back(make_row(name, block, columns));
    print_table(pool_rows, out);
    absent = absent || has_absent_cell(pool_rows);
  }
  // A figure without samples is "-", never 0 (docs/metrics.md, "No samples").
  if (absent) out << "-: no samples (a TTFT needs an output token, a TPOT or ITL two; every figure a completed request)\n";

  print_accounting(summary.overall, out);
  print_slo_verdict(summary, out);
  print_clamped_lengths(summary, out);

  const double unfinished = summary.overall.get("unfinished");
  if (std::isfinite(unfinished) && unfinished > 0) {
    out << "\nunfinished when the run stopped: " << std::llround(unfinished) << '\n';
  }
  // Simulation::note_saturation sets these (docs/reliability.md).
  if (summary.overall.get("saturated") == 1.0) {
    const std::string by = summary.overall.label("saturated_by");
    const std::string resource = summary.overall.label("saturated_resource");
    const std::string short_of = resource.empty() || resource == "none" ? "" : "; short of " + resource;
    // With several pools, the one that ran short (a prefill/decode split: which side to grow).
    const std::string pool = summary.overall.label("saturated_pool");
    const std::string in_pool =
        summary.pools.size() > 1 && !pool.empty() && pool != "none" && pool != "unknown" ? "pool " + pool + " " : "";
    out << "saturated: arrivals outpaced the cluster"
        << (by.empty() ? "" : " (" + in_pool + "bound by " + by + short_of + ")")
        << "; " << std::llround(summary.overall.get("backlog"))
        << " requests were waiting or running at the last arrival (peak "
        << std::llround(summary.overall.get("peak_in_flight"))
        << "), so the latencies describe a queue that was still growing\n";
    const std::string note = summary.overall.label("saturation_note");
    if (!note.empty()) out << "  " << note << '\n';
  } else if (summary.overall.get("too_short_to_judge") == 1.0) {
    out << "too short to judge whether the cluster kept up (" << summary.overall.label("saturation_note")
        << "): run it longer before trusting its latencies\n";
  }
  if (!summary.overall.rejected_reasons.empty()) {
    out << "rejected by reason:";
    for (const auto& [reason, count] : summary.overall.rejected_reasons) {
      out << ' ' << reason << '=' << count;
    }
    out << '\n';
  }
}

}  // namespace servesim
