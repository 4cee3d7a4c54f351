#!/usr/bin/env bash
# Submits training, the sharded profile (an array) and the merge, each
# after the previous one succeeded. afterok on an array job waits for
# every task of the array.
#   RESULTS=/shared/macepc/run deploy/slurm/submit.sh
set -euo pipefail
cd "$(dirname "$0")"
: "${RESULTS:?set RESULTS to a directory on a file system every node mounts}"
export RESULTS
MACEPC=${MACEPC:-macepc}
SYSTEM=${SYSTEM:-randtree}
SEED=${SEED:-1}
export MACEPC SYSTEM SEED
mkdir -p "$RESULTS"

train=$(sbatch --parsable --job-name=macepc-train --output=macepc-train-%j.out \
  --wrap "\"$MACEPC\" train --system \"$SYSTEM\" --seed \"$SEED\" --progress never --out \"$RESULTS\"")
profile=$(sbatch --parsable --dependency=afterok:"$train" profile.sbatch)
merge=$(sbatch --parsable --dependency=afterok:"$profile" merge.sbatch)
echo "submitted: train $train, profile array $profile, merge $merge"
