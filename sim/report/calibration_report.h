#pragma once
// What `servesim calibrate` prints and writes for a roofline calibration
// (sim/study/roofline_calibration.h): the fit's figures as a console table, the calibrated
// profile's YAML (the writers of calibrated_hardware_writer.h and
// kernel_fit_hardware_writer.h), and handing the profile over to standard output or a file.
#include <functional>
#include <iosfwd>
#include <string>

#include "sim/study/roofline_calibration.h"

namespace servesim {

// Each whole-step row (measured, predicted, error, fitted or held out), then the median and
// max |error| of each kind of row, then a warning per parameter the rows do not pin down.
void print_measured_fit(const CalibrationResult& result, std::ostream& out);

// The calibrated profile: the starting profile with the fitted block and its provenance.
std::string measured_fit_profile(const MeasuredFitRequest& request, const MeasuredFitStudy& study);

// Each op family's rows, |error| median / p90 / max and fitted values, then how the derived
// values were set.
void print_kernel_fit(const TableFitResult& result, std::ostream& out);

// The profile with the values fitted to the kernel tables and their provenance.
std::string kernel_fit_profile(const KernelFitStudy& study);

// Hands over a fitted profile: without `output`, the YAML on `out` and `report` (the fit's
// figures) on `err`, so the YAML can be piped; with it, the file written and `report` on
// `out`, then "wrote FILE". Throws ConfigError("cannot write FILE") when the file cannot be
// written.
void emit_fitted_profile(const std::string& yaml, const std::string& output,
                         const std::function<void(std::ostream&)>& report, std::ostream& out, std::ostream& err);

}  // namespace servesim
