#include "sim/report/html_report_header.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <vector>

#include "sim/core/errors.h"

namespace servesim {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A JSON value as a table shows it: whole numbers without a decimal point, null as "-".
std::string text(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<std::int64_t>(d));
    std::ostringstream os;
    os << d;
    return os.str();
  }
  return v.dump();
}

std::string field(const json& obj, const char* key) { return obj.is_object() && obj.contains(key) ? text(obj[key]) : "-"; }

std::string row(const std::vector<std::string>& cells, const char* tag = "td") {
  std::string out = "<tr>";
  for (const auto& c : cells) out += std::string("<") + tag + ">" + c + "</" + tag + ">";
  return out + "</tr>\n";
}

std::string table(const std::vector<std::string>& head, const std::string& body, const char* cls) {
  std::string out = std::string("<table class=\"") + cls + "\"><thead>\n" + row(head, "th") + "</thead><tbody>\n";
  return out + body + "</tbody></table>\n";
}

std::string fact(const std::string& name, const std::string& value) {
  return "<tr><th>" + name + "</th><td>" + value + "</td></tr>\n";
}

std::string utc_text(std::time_t seconds) {
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M UTC", &tm);
  return buffer;
}

std::string kv_capacity(const json& pool) {
  if (!pool.contains("kv_capacity_tokens") || pool["kv_capacity_tokens"].is_null()) return "-";
  return text(pool["kv_capacity_tokens"]) + " tokens (" + text(pool["kv_blocks"]) + " blocks of " +
         text(pool["block_size"]) + ")";
}

std::string engine_text(const json& pool) {
  std::string out = field(pool, "engine_policy");
  if (pool.contains("engine_preset") && !pool["engine_preset"].is_null()) out += " (preset " + text(pool["engine_preset"]) + ")";
  return out;
}

std::string pools_from_context(const json& context) {
  std::string body;
  for (const json& p : context["pools"]) {
    std::string replicas = field(p, "replicas");
    if (p.contains("min_replicas")) replicas = text(p["min_replicas"]) + ".." + replicas + " (autoscaled)";
    body += row({html_escape(field(p, "name")), replicas, html_escape(field(p, "model")), html_escape(field(p, "hardware")),
                 field(p, "tp") + " / " + field(p, "pp") + " / " + field(p, "ep"),
                 field(p, "weights") + " / " + field(p, "kv"), html_escape(engine_text(p)),
                 html_escape(field(p, "engine_version")), html_escape(field(p, "cost_model")),
                 field(p, "price_per_gpu_hour"), kv_capacity(p)});
  }
  return table({"pool", "replicas", "model", "GPU", "tp / pp / ep", "weights / KV", "engine", "engine version",
                "cost model (tables)", "USD / GPU-hour", "KV capacity per replica"},
               body, "pools");
}

// summary.json's "deployment": {scenario, pools: {NAME: {...}}}, without the workload or KV.
std::string pools_from_deployment(const json& deployment) {
  std::string body;
  for (const auto& [name, p] : deployment["pools"].items())
    body += row({html_escape(name), field(p, "replicas"), html_escape(field(p, "model")), html_escape(field(p, "hardware")),
                 field(p, "tp") + " / " + field(p, "pp") + " / " + field(p, "ep"),
                 field(p, "weights") + " / " + field(p, "kv"), html_escape(field(p, "engine")),
                 html_escape(field(p, "engine_version")), html_escape(field(p, "cost_model"))});
  return table({"pool", "replicas", "model", "GPU", "tp / pp / ep", "weights / KV", "engine preset", "engine version",
                "cost model"},
               body, "pools");
}

std::string slo_text(const json& slo) {
  std::string out;
  for (const json& o : slo) {
    std::string objective = o["objective"].get<std::string>();
    objective.replace(objective.find('_'), 1, " ");
    out += (out.empty() ? "" : ", ") + objective + " &le; " + text(o["target_ms"]) + " ms";
  }
  return out.empty() ? "none stated" : out;
}

std::string workload_from_context(const json& context) {
  std::string body;
  for (const json& c : context["classes"])
    body += row({html_escape(field(c, "name")), html_escape(field(c, "workload")), slo_text(c["slo"])});
  return table({"class", "workload", "SLO targets"}, body, "classes");
}

// Each axis with its values, from the sweep's fingerprint or else its rows.
std::string swept_axes(const json& sweep) {
  std::string out;
  for (const auto& axis : sweep.value("axes", json::array())) {
    const std::string key = axis.get<std::string>();
    std::vector<std::string> values;
    const json& defined = sweep.value("defined_by", json::object());
    if (defined.is_object() && defined.contains("axes") && defined["axes"].contains(key)) {
      for (const auto& v : defined["axes"][key]) values.push_back(text(v));
    } else {
      for (const auto& r : sweep.value("rows", json::array())) values.push_back(text(r["values"][key]));
    }
    std::string list;
    for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
    out += (out.empty() ? "" : "; ") + html_escape(key + " = " + list);
  }
  return out + " (" + html_escape(sweep.value("mode", std::string("product"))) +
         "); the pools and workload below are the scenario's before the axes apply";
}

std::string facts(const json& data, const json& context) {
  std::string body;
  if (context.is_object()) {
    body += fact("scenario", html_escape(field(context, "scenario") + " (" + field(context, "file") + ")"));
    body += fact("seed", field(context, "seed"));
    body += fact("stop", html_escape(field(context, "stop")));
    body += fact("router", html_escape(field(context, "router")));
  } else if (data["kind"] == "sweep") {
    body += fact("scenario", html_escape(field(data["sweep"], "scenario")));
  } else {
    body += fact("scenario", html_escape(field(data["summary"].value("deployment", json::object()), "scenario")));
  }
  if (data["kind"] == "sweep") body += fact("swept", swept_axes(data["sweep"]));
  body += fact("servesim", context.is_object() ? html_escape(field(context, "servesim_version"))
                                               : std::string(SERVESIM_VERSION) + " (wrote this page)");
  body += fact("date", html_escape(data["date"].get<std::string>()));
  return "<table class=\"facts\"><tbody>\n" + body + "</tbody></table>\n";
}

}  // namespace

std::string report_date(const fs::path& file) {
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch != nullptr && *epoch != '\0') {
    char* end = nullptr;
    const long long seconds = std::strtoll(epoch, &end, 10);
    if (*end != '\0' || seconds < 0)
      throw ConfigError("", 0, "SOURCE_DATE_EPOCH", std::string("'") + epoch + "' is not a whole number of seconds");
    return utc_text(static_cast<std::time_t>(seconds)) + " (SOURCE_DATE_EPOCH)";
  }
  std::error_code ec;
  const auto written = fs::last_write_time(file, ec);
  if (ec) return "unknown";
  const auto system = std::chrono::time_point_cast<std::chrono::seconds>(
      written - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
  return utc_text(std::chrono::system_clock::to_time_t(system)) + " (" + file.filename().string() + " written)";
}

std::string report_header_html(const json& data) {
  const json& context = data["context"];
  std::string out = "<section id=\"simulated\">\n<h2>What was simulated</h2>\n" + facts(data, context);
  if (context.is_object()) {
    out += "<h3>Pools</h3>\n" + pools_from_context(context) + "<h3>Workload</h3>\n" + workload_from_context(context);
  } else if (data["kind"] == "run" && data["summary"].contains("deployment")) {
    out += "<h3>Pools</h3>\n" + pools_from_deployment(data["summary"]["deployment"]);
  }
  if (!context.is_object()) {
    out += data["kind"] == "sweep"
               ? "<p class=\"note\">This sweep.json has no \"context\" (written by an earlier servesim): the pools and "
                 "workload are not known here.</p>\n"
               : "<p class=\"note\">This folder has no run_context.json (a run writes it with outputs.html: true, "
                 "or `servesim report DIR --scenario FILE` describes the run): the workload, SLO targets, seed and "
                 "KV capacity are not known here.</p>\n";
  }
  return out + "</section>\n";
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace servesim
