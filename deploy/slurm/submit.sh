#!/usr/bin/env bash
# Submits the MacePC pipeline to Slurm, each job after the previous one
# succeeded: training, the sharded profile (an array), its merge, the
# sharded search (an array, reading the merged profile.json) and its
# merge. afterok on an array job waits for every task of the array.
#   RESULTS=/shared/macepc/run deploy/slurm/submit.sh
# Variables: RESULTS (on a file system every node mounts), MACEPC (the
# binary), SYSTEM, VARIANT (default: the system's), SEED, RUNS (profile
# executions), MAX_RUNS (search executions); ARRAY (e.g. 0-3) and CPUS
# (per task) override the scripts' --array and --cpus-per-task. The jobs'
# output files go to the current directory, as sbatch's do by default.
# Prints the job ids, the last one being the search merge, whose exit
# status 1 (Slurm: FAILED) means an anomaly was found.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${RESULTS:?set RESULTS to a directory on a file system every node mounts}"
export RESULTS
MACEPC=${MACEPC:-macepc}
SYSTEM=${SYSTEM:-randtree}
VARIANT=${VARIANT:-}
SEED=${SEED:-1}
export MACEPC SYSTEM SEED
mkdir -p "$RESULTS"
array=(${ARRAY:+--array="$ARRAY"} ${CPUS:+--cpus-per-task="$CPUS"})
one=(${CPUS:+--cpus-per-task="$CPUS"})

train=$(sbatch --parsable --job-name=macepc-train --output=macepc-train-%j.out "${one[@]}" \
  --wrap "\"$MACEPC\" train --system \"$SYSTEM\"${VARIANT:+ --variant \"$VARIANT\"} --seed \"$SEED\" --progress never --out \"$RESULTS\"")
profile=$(sbatch --parsable --dependency=afterok:"$train" "${array[@]}" "$here/profile.sbatch")
merge=$(sbatch --parsable --dependency=afterok:"$profile" "$here/merge.sbatch")
search=$(sbatch --parsable --dependency=afterok:"$merge" "${array[@]}" "$here/search.sbatch")
smerge=$(sbatch --parsable --dependency=afterok:"$search" "$here/search-merge.sbatch")
echo "submitted: train $train, profile array $profile, merge $merge, search array $search, search merge $smerge"
