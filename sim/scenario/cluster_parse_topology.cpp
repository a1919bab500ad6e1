// The cluster's network (`cluster.topology:`), router staleness and per-class admission
// (`cluster.admission:`). Keys and defaults: docs/cluster.md.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "sim/cluster/topology_spec.h"
#include "sim/scenario/cluster_parse.h"
#include "sim/scenario/did_you_mean.h"

namespace servesim {

namespace {

const std::vector<std::string> kNodeKinds = {"gpu", "nvswitch", "pcie", "host", "nic", "switch"};

// "450GB/s", "400Gb/s", "64 GB/s", "1.6TB/s", "100MB/s" -> bytes/s. Decimal units (as
// vendors quote links); a lower-case b is bits.
double parse_bandwidth(const Field& f) {
  const std::string text = f.as_string();
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == 'e'))
    ++i;
  double value = 0;
  try {
    value = std::stod(text.substr(0, i));
  } catch (...) {
    f.fail("expected a bandwidth such as 450GB/s or 400Gb/s, got '" + text + "'");
  }
  std::string unit = text.substr(i);
  unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
  const std::vector<std::pair<std::string, double>> units = {
      {"TB/s", 1e12}, {"GB/s", 1e9}, {"MB/s", 1e6}, {"Tb/s", 1e12 / 8}, {"Gb/s", 1e9 / 8}, {"Mb/s", 1e6 / 8}};
  for (const auto& [name, scale] : units)
    if (unit == name) {
      if (!(value > 0) || !std::isfinite(value)) f.fail("a link needs a bandwidth above 0, got '" + text + "'");
      return value * scale;
    }
  f.fail("expected a bandwidth with a unit TB/s, GB/s, MB/s (bytes) or Tb/s, Gb/s, Mb/s (bits), got '" + text + "'");
}

}  // namespace

TopologySpec parse_topology(const Field& f) {
  TopologySpec spec;
  const std::vector<std::string> presets = topology_preset_names();
  auto check_preset = [&](const Field& at) {
    spec.preset = at.as_string();
    if (std::find(presets.begin(), presets.end(), spec.preset) == presets.end())
      at.fail(unknown_choice_message("topology preset", "presets", spec.preset, presets));
  };
  if (f.is_scalar()) {  // `topology: dgx-h100`
    check_preset(f);
    return spec;
  }
  f.expect_map({"preset", "nodes", "links"});
  if (auto p = f.get("preset")) {
    check_preset(*p);
    if (f.get("links")) f.get("links")->fail("a preset has its own links; give either a preset or nodes and links");
    if (auto n = f.get("nodes")) {
      const std::int64_t machines = n->int_at_least(1);
      if (machines > 4096) n->fail("must be at most 4096 machines");
      spec.preset_nodes = static_cast<int>(machines);
    }
    return spec;
  }
  std::set<std::string> names;
  for (const Field& node : f.require("nodes").items()) {
    node.expect_map({"name", "kind"});
    TopologyNodeSpec n{node.require("name").as_string(), node.require("kind").as_string()};
    if (std::find(kNodeKinds.begin(), kNodeKinds.end(), n.kind) == kNodeKinds.end())
      node.require("kind").fail(unknown_choice_message("node kind", "kinds", n.kind, kNodeKinds));
    if (!names.insert(n.name).second) node.require("name").fail("duplicate node name '" + n.name + "'");
    spec.nodes.push_back(n);
  }
  for (const Field& link : f.require("links").items()) {
    link.expect_map({"a", "b", "bandwidth", "latency"});
    TopologyLinkSpec l;
    l.a = link.require("a").as_string();
    l.b = link.require("b").as_string();
    for (const auto& [end, at] : {std::pair{l.a, link.require("a")}, std::pair{l.b, link.require("b")}}) {
      if (!names.count(end)) {
        const std::vector<std::string> known(names.begin(), names.end());
        at.fail(unknown_choice_message("node", "nodes", end, known));
      }
    }
    if (l.a == l.b) link.require("b").fail("a link joins two different nodes");
    l.bandwidth_bytes_per_s = parse_bandwidth(link.require("bandwidth"));
    l.latency_ns = link.get("latency") ? link.get("latency")->as_duration_ns() : 0;
    spec.links.push_back(l);
  }
  return spec;
}

std::vector<ClassAdmission> parse_admission(const Field& f, const std::vector<ClassSpec>& classes) {
  std::vector<std::string> known;
  for (const ClassSpec& c : classes) known.push_back(c.name);
  f.expect_map(known);  // keys are class names
  std::vector<ClassAdmission> out;
  for (const std::string& name : f.keys()) {
    const Field a = f.require(name);
    a.expect_map({"queue_limit", "timeout"});
    ClassAdmission adm;
    adm.class_name = name;
    if (auto q = a.get("queue_limit")) adm.queue_limit = q->int_at_least(0);
    if (auto t = a.get("timeout")) {
      adm.timeout_ns = t->as_duration_ns();
      if (*adm.timeout_ns <= 0) t->fail("a timeout must be above 0 (leave it out for none)");
    }
    out.push_back(adm);
  }
  return out;
}

}  // namespace servesim
