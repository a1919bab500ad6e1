#pragma once
#include <string>
#include <vector>

namespace servesim {
// Names of the routers built in (cluster/router registry), for validation.
std::vector<std::string> router_names();
}  // namespace servesim
