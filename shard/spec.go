package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec is shard Index of Count (0 <= Index < Count).
type Spec struct {
	Index, Count int
}

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Len is how many of the executions 0..total-1 belong to the shard.
func (s Spec) Len(total int) int {
	if total <= s.Index {
		return 0
	}
	return (total-s.Index-1)/s.Count + 1
}

// Global is the global execution index of the shard's j-th execution.
func (s Spec) Global(j int) int { return s.Index + j*s.Count }

func (s Spec) check() error {
	if s.Count < 1 {
		return fmt.Errorf("shard: the shard count must be at least 1, got %d", s.Count)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard: index %d is not in 0..%d", s.Index, s.Count-1)
	}
	return nil
}

// Parse reads "i/n" (shard i of n, counted from 0).
func Parse(v string) (Spec, error) {
	is, ns, ok := strings.Cut(v, "/")
	if !ok {
		return Spec{}, fmt.Errorf("shard: %q is not i/n (shard i of n, from 0), e.g. 2/8", v)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("shard: %q is not i/n with two integers, e.g. 2/8", v)
	}
	s := Spec{Index: i, Count: n}
	if err := s.check(); err != nil {
		return Spec{}, fmt.Errorf("shard: %q: %w", v, trim(err))
	}
	return s, nil
}

func trim(err error) error {
	return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "shard: "))
}

// The environment variables Resolve reads.
const (
	EnvK8sIndex   = "JOB_COMPLETION_INDEX"
	EnvCount      = "MACEPC_SHARD_COUNT"
	EnvSlurmID    = "SLURM_ARRAY_TASK_ID"
	EnvSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	EnvSlurmCount = "SLURM_ARRAY_TASK_COUNT"
)

// Off is the flag value that ignores the environment: no sharding.
const Off = "off"

// Resolve picks the shard of this process. A non-empty flag ("i/n", or
// Off) wins; otherwise the batch engine's environment, read through
// getenv: a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with the count
// in MACEPC_SHARD_COUNT), then a Slurm array (SLURM_ARRAY_TASK_ID −
// SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT). ok is false when
// nothing asks for sharding. source says where the shard came from, with
// the values read, for the output and the shard file's header.
func Resolve(flag string, getenv func(string) string) (s Spec, source string, ok bool, err error) {
	switch {
	case flag == Off:
		return Spec{}, "", false, nil
	case flag != "":
		s, err := Parse(flag)
		if err != nil {
			return Spec{}, "", false, fmt.Errorf("--shard: %w", trim(err))
		}
		return s, "--shard " + flag, true, nil
	}
	num := func(name string) (int, error) {
		v := strings.TrimSpace(getenv(name))
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("shard: %s=%q is not a non-negative integer", name, getenv(name))
		}
		return n, nil
	}
	if getenv(EnvK8sIndex) != "" {
		i, err := num(EnvK8sIndex)
		if err != nil {
			return Spec{}, "", false, err
		}
		if getenv(EnvCount) == "" {
			return Spec{}, "", false, fmt.Errorf("shard: %s=%d is set (a Kubernetes Indexed Job) but %s is not: set it to the Job's completions, or pass --shard i/n or --shard off", EnvK8sIndex, i, EnvCount)
		}
		n, err := num(EnvCount)
		if err != nil {
			return Spec{}, "", false, err
		}
		s := Spec{Index: i, Count: n}
		if err := s.check(); err != nil {
			return Spec{}, "", false, fmt.Errorf("shard: %s=%d with %s=%d: %w", EnvK8sIndex, i, EnvCount, n, trim(err))
		}
		return s, fmt.Sprintf("kubernetes indexed job (%s=%d, %s=%d)", EnvK8sIndex, i, EnvCount, n), true, nil
	}
	if getenv(EnvSlurmID) != "" {
		id, err := num(EnvSlurmID)
		if err != nil {
			return Spec{}, "", false, err
		}
		for _, name := range []string{EnvSlurmMin, EnvSlurmCount} {
			if getenv(name) == "" {
				return Spec{}, "", false, fmt.Errorf("shard: %s=%d is set (a Slurm array task) but %s is not: pass --shard i/n or --shard off", EnvSlurmID, id, name)
			}
		}
		lo, err := num(EnvSlurmMin)
		if err != nil {
			return Spec{}, "", false, err
		}
		n, err := num(EnvSlurmCount)
		if err != nil {
			return Spec{}, "", false, err
		}
		s := Spec{Index: id - lo, Count: n}
		if err := s.check(); err != nil {
			return Spec{}, "", false, fmt.Errorf("shard: Slurm array task %s=%d - %s=%d of %s=%d: %w (the array must be a contiguous range such as --array=0-%d)",
				EnvSlurmID, id, EnvSlurmMin, lo, EnvSlurmCount, n, trim(err), max(n-1, 0))
		}
		return s, fmt.Sprintf("slurm array (%s=%d - %s=%d, %s=%d)", EnvSlurmID, id, EnvSlurmMin, lo, EnvSlurmCount, n), true, nil
	}
	return Spec{}, "", false, nil
}
