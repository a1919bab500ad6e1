#!/bin/bash
# One shard of a sweep as a Slurm job array task; the array is the whole sweep. Submit it,
# then merge the shards once every task has finished (docs/sweeps.md):
#
#   jobid=$(sbatch --parsable --array=0-15 --cpus-per-task=8 examples/sweep-slurm.sh \
#           SCENARIO.yaml OUT_DIR --axis KEY=V1,V2,... [sweep options])
#   sbatch --dependency=afterok:$jobid --wrap "build/servesim merge OUT_DIR/shard-* -o OUT_DIR/all"
#
# Each task runs the points whose index % SLURM_ARRAY_TASK_COUNT == SLURM_ARRAY_TASK_ID on
# its SLURM_CPUS_PER_TASK cores. SERVESIM (default build/servesim) is the program; the
# tasks must see the same file system (the scenario, its traces and OUT_DIR).
#SBATCH --job-name=servesim-sweep
#SBATCH --output=servesim-sweep-%A_%a.log
set -euo pipefail
servesim="${SERVESIM:-build/servesim}"
scenario="$1" out="$2"
shift 2
"$servesim" sweep "$scenario" "$@" --jobs "${SLURM_CPUS_PER_TASK:-1}" -q \
  --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" --out "$out/shard-$SLURM_ARRAY_TASK_ID"
