#!/usr/bin/env bash
# Runs the three steps in order on the current kubectl context: training,
# the sharded profile (an Indexed Job), the merge. Kubernetes has no
# dependencies between Jobs, so this script waits for each one.
set -euo pipefail
cd "$(dirname "$0")"
timeout=${TIMEOUT:-7200} # seconds per Job

# wait_job waits until Job $1 is Complete (returns 0) or Failed (prints its
# logs and exits 1), or until the timeout; 'kubectl wait' for one condition
# would sit out the whole timeout on a failed Job.
wait_job() {
  local deadline=$((SECONDS + timeout)) state
  while ((SECONDS < deadline)); do
    state=$(kubectl get "job/$1" -o jsonpath='{.status.conditions[?(@.status=="True")].type}')
    case " $state " in
    *" Complete "*) return 0 ;;
    *" Failed "*)
      echo "job $1 failed:" >&2
      kubectl logs "job/$1" --tail=20 >&2 || true
      exit 1
      ;;
    esac
    sleep 5
  done
  echo "job $1: not done after ${timeout}s" >&2
  exit 1
}

kubectl apply -f train-job.yaml
wait_job macepc-train

kubectl apply -f profile-job.yaml
wait_job macepc-profile

kubectl apply -f merge-job.yaml
wait_job macepc-merge
kubectl logs job/macepc-merge
