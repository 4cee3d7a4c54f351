#!/usr/bin/env bash
# Runs the three steps in order on the current kubectl context: training,
# the sharded profile (an Indexed Job), the merge. Kubernetes has no
# dependencies between Jobs, so this script waits for each one.
set -euo pipefail
cd "$(dirname "$0")"
timeout=${TIMEOUT:-2h}

kubectl apply -f train-job.yaml
kubectl wait --for=condition=complete --timeout="$timeout" job/macepc-train

kubectl apply -f profile-job.yaml
kubectl wait --for=condition=complete --timeout="$timeout" job/macepc-profile

kubectl apply -f merge-job.yaml
kubectl wait --for=condition=complete --timeout="$timeout" job/macepc-merge
kubectl logs job/macepc-merge
