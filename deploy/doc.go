// Package deploy holds no Go code: it is the manifests and scripts that
// run macepc's sharded phases on batch engines (kubernetes/: an Indexed
// Job; slurm/: a job array with a merge step after it), described in
// deploy/README.md. Its test runs the macepc commands those files contain,
// with each engine's environment, and checks that the merged profile is
// the unsharded one, so the files cannot drift from the command line. The
// Kubernetes manifests are decoded strictly into the k8s.io/api types, so
// a misspelt or misplaced field fails the test too.
//
// realnet/ holds the same for real runs with one node per process: a
// script that starts N macepc processes on loopback, and a Kubernetes
// example (a headless Service and an Indexed Job); the test runs the
// script for real and each pod's command on loopback.
//
// The test only sets the engines' variables; slurm/ci-cluster.sh, which
// .ci/run calls as root, runs the Slurm scripts on a real one-node Slurm
// (Debian's slurm-wlm and munge) and compares the merged directories with
// an unsharded run byte for byte.
package deploy
