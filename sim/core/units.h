#pragma once
// Byte and time units shared by the files that convert at the edges (memory plans, kernel
// tables): one definition, so that no two files spell a unit differently.

namespace servesim {

inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kSecondsPerMs = 1e-3;

}  // namespace servesim
