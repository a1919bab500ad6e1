#include "sim/scenario/distribution_parse.h"

#include <string>
#include <vector>

#include "sim/scenario/data_paths.h"
#include "sim/scenario/did_you_mean.h"

namespace servesim {

namespace {

const std::vector<std::string> kKinds = {"fixed",     "uniform",     "normal",
                                         "lognormal", "exponential", "empirical"};

// One value of the distribution in its unit: tokens must be >= 0; durations take units.
double value_of(const Field& f, DistUnit unit) {
  return unit == DistUnit::seconds ? f.as_duration_s() : f.non_negative_double();
}

std::string show(double v, DistUnit unit) {
  return format_number(v) + (unit == DistUnit::seconds ? "s" : "");
}

void parse_kind(const Field& f, const std::string& kind, DistUnit unit, DistSpec& spec) {
  if (kind == "fixed") {
    spec.kind = DistSpec::Kind::fixed;
    spec.a = value_of(f, unit);
  } else if (kind == "uniform") {
    spec.kind = DistSpec::Kind::uniform;
    if (!f.is_list()) f.fail("expected [MIN, MAX], got " + f.describe());
    const std::vector<Field> bounds = f.items();
    if (bounds.size() != 2) {
      f.fail("expected [MIN, MAX] (two values), got " + std::to_string(bounds.size()));
    }
    spec.a = value_of(bounds[0], unit);
    spec.b = value_of(bounds[1], unit);
    if (spec.a > spec.b) {
      f.fail("uniform min " + show(spec.a, unit) + " is greater than max " + show(spec.b, unit));
    }
  } else if (kind == "normal") {
    spec.kind = DistSpec::Kind::normal;
    f.expect_map({"mean", "std"});
    spec.a = value_of(f.require("mean"), unit);
    const Field std_field = f.require("std");
    spec.b = value_of(std_field, unit);
  } else if (kind == "lognormal") {
    spec.kind = DistSpec::Kind::lognormal;
    f.expect_map({"median", "sigma"});
    const Field median = f.require("median");
    spec.a = value_of(median, unit);
    if (!(spec.a > 0)) median.fail("median must be > 0, got " + median.node().Scalar());
    // sigma is the standard deviation of ln(X): a pure number even for durations.
    const Field sigma = f.require("sigma");
    spec.b = sigma.as_double();
    if (spec.b < 0) sigma.fail("sigma must be >= 0, got " + sigma.node().Scalar());
  } else if (kind == "exponential") {
    spec.kind = DistSpec::Kind::exponential;
    f.expect_map({"mean"});
    const Field mean = f.require("mean");
    spec.a = value_of(mean, unit);
    if (!(spec.a > 0)) mean.fail("mean must be > 0, got " + mean.node().Scalar());
  } else {  // empirical
    spec.kind = DistSpec::Kind::empirical;
    f.expect_map({"path", "column"});
    spec.path = existing_data_path(f.require("path"), "empirical distribution file");
    spec.column = f.require("column").as_string();
    if (spec.column.empty()) f.require("column").fail("the column name is empty");
  }
}

}  // namespace

DistSpec parse_distribution(const Field& field, DistUnit unit) {
  DistSpec spec;
  if (field.is_scalar()) {  // `output: 400` reads as {fixed: 400}
    spec.kind = DistSpec::Kind::fixed;
    spec.a = value_of(field, unit);
    return spec;
  }
  if (!field.is_map()) {
    field.fail(
        "expected a distribution such as {fixed: 400} or {lognormal: {median: 2000, "
        "sigma: 0.6}}, got " +
        field.describe());
  }
  std::vector<std::string> valid = kKinds;
  valid.push_back("min");
  valid.push_back("max");
  field.expect_map(valid);

  std::optional<std::string> kind;
  for (const std::string& k : kKinds) {
    if (!field.has(k)) continue;
    if (kind) field.fail("gives both '" + *kind + "' and '" + k + "'; choose one distribution");
    kind = k;
  }
  if (!kind) {
    field.fail_at_key("no distribution given; expected one of " + join_choices(kKinds) +
                      " (e.g. {fixed: 400})");
  }
  parse_kind(*field.get(*kind), *kind, unit, spec);

  if (auto min = field.get("min")) spec.min = value_of(*min, unit);
  if (auto max = field.get("max")) spec.max = value_of(*max, unit);
  if (spec.min && spec.max && *spec.min > *spec.max) {
    field.get("min")->fail("min " + show(*spec.min, unit) + " is greater than max " +
                           show(*spec.max, unit));
  }
  return spec;
}

std::string describe_distribution(const DistSpec& spec, DistUnit unit) {
  std::string out;
  switch (spec.kind) {
    case DistSpec::Kind::fixed:
      out = "fixed " + show(spec.a, unit);
      break;
    case DistSpec::Kind::uniform:
      out = "uniform[" + show(spec.a, unit) + ", " + show(spec.b, unit) + "]";
      break;
    case DistSpec::Kind::normal:
      out = "normal(mean " + show(spec.a, unit) + ", std " + show(spec.b, unit) + ")";
      break;
    case DistSpec::Kind::lognormal:
      out = "lognormal(median " + show(spec.a, unit) + ", sigma " + format_number(spec.b) + ")";
      break;
    case DistSpec::Kind::exponential:
      out = "exponential(mean " + show(spec.a, unit) + ")";
      break;
    case DistSpec::Kind::empirical:
      out = "empirical(" + spec.path + ", " + spec.column + ")";
      break;
  }
  if (spec.min) out += " min " + show(*spec.min, unit);
  if (spec.max) out += " max " + show(*spec.max, unit);
  return out;
}

}  // namespace servesim
