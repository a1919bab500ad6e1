#pragma once
// What changes the replica's own rejections (Replica::submit's reasons), worded once for
// every report that explains one: capacity's trial reasons (study/run_judgement.cpp), the
// scenario's servability check (scenario/servability.h) and `run`'s message on a run that
// served nothing.
namespace servesim {

// exceeds_max_context: prompt + output longer than the model's context.
inline constexpr const char* kExceedsMaxContextFix =
    "bound the lengths (max: in the class's input/output) or set engine.on_context_overflow: truncate";
// exceeds_kv_capacity: a request needs more KV blocks than a replica holds.
inline constexpr const char* kExceedsKvCapacityFix =
    "bound the lengths (max: in the class's input/output) or give the replica more KV memory";

}  // namespace servesim
