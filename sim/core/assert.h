#pragma once
// Invariant checks that stay on in release builds: a broken invariant in a simulator
// silently corrupts every number downstream, which is worse than a crash.
#include <cstdio>
#include <cstdlib>

#define SS_ASSERT(cond, msg)                                                              \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "servesim: internal invariant broken at %s:%d: %s (%s)\n",     \
                   __FILE__, __LINE__, #cond, msg);                                       \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)
