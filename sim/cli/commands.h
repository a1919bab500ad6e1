#pragma once
// Each subcommand of the `servesim` executable. `args` excludes the program and subcommand
// names. Return value is the exit code: 0 ok, 1 a check failed, 2 bad input or usage.
#include <iosfwd>
#include <string>
#include <vector>

namespace servesim::cli {

int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int validate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int step_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cache_curve_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int calibrate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int sweep_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int capacity_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int compare_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int search_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int explain_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int calibrate_from_benchmark_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int calibrate_from_kernels_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int replay_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int merge_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int report_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace servesim::cli
