package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
)

// A Go caller sees the fields of its configuration, not the command
// line's flags: the error is a *ConfigError naming the field, through
// the package's *Error, and its message says the field's name.
func TestConfigErrorNamesFields(t *testing.T) {
	d := openDir(t)
	target := randtreeTarget(t, "buggy")
	ctx := context.Background()
	for _, c := range []struct {
		field, msg string
		run        func() error
	}{
		{"Config.Walks", "pipeline: Config.Walks must be at least 1, got 0", func() error {
			cfg := pipeline.DefaultConfig(d, target)
			cfg.Walks = 0
			_, err := pipeline.Run(ctx, cfg)
			return err
		}},
		{"Config.TrainRuns", "pipeline: Config.TrainRuns must be at least 0 (0: no training), got -1", func() error {
			cfg := pipeline.DefaultConfig(d, target)
			cfg.TrainRuns = -1
			_, err := pipeline.Run(ctx, cfg)
			return err
		}},
		{"Thresholds.IQRFactor", "pipeline: Thresholds.IQRFactor must be a positive number, got 0", func() error {
			_, err := pipeline.Profile(ctx, pipeline.ProfileConfig{Env: pipeline.Env{Dir: d}, Target: target, Runs: 5})
			return err
		}},
		{"DivergeConfig.Confirm", "pipeline: DivergeConfig.Confirm must be at least 0, got -1", func() error {
			return (&pipeline.DivergeConfig{Walks: 1, Confirm: -1}).Validate()
		}},
		{"Env.Jobs", "pipeline: Env.Jobs must be at least 0, got -2", func() error {
			_, _, err := pipeline.Train(ctx, pipeline.TrainConfig{Env: pipeline.Env{Dir: d, Jobs: -2}, Target: target, Runs: 1})
			return err
		}},
	} {
		err := c.run()
		var ce *pipeline.ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field || err.Error() != c.msg {
			t.Errorf("%s: %v (%#v), want %q", c.field, err, ce, c.msg)
			continue
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("%s: a flag in a library error: %v", c.field, err)
		}
	}
	if ents, _ := os.ReadDir(d.Path()); len(ents) > 0 {
		t.Errorf("a refused configuration wrote %d files", len(ents))
	}
}

// A front end renders the fields and the suggested commands with its own
// names; the cause stays visible to errors.Is.
func TestRenderHints(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no such dir")
	_, err := pipeline.ExistingDir(dir)
	var ce *pipeline.ConfigError
	if !errors.As(err, &ce) || ce.Field != "Env.Dir" || len(ce.Hints) != 2 || !slices.Equal(ce.Hints[1], []string{"profile", "--out", dir}) {
		t.Fatalf("ExistingDir: %v (%#v)", err, ce)
	}
	want := fmt.Sprintf("pipeline: Env.Dir %s is not a results directory (run 'macepc run' or 'macepc profile --out '%s'' first)", dir, dir)
	if err.Error() != want {
		t.Errorf("default message %q, want %q", err.Error(), want)
	}
	names := pipeline.Names{Program: "hello", Field: func(f string) string { return map[string]string{"Env.Dir": "-o"}[f] }}
	want = fmt.Sprintf("-o %s is not a results directory (run 'hello run' or 'hello profile --out '%s'' first)", dir, dir)
	if got := pipeline.Render(err, names); got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}

	// A phase's missing file: the hint, and fs.ErrNotExist through it.
	d := openDir(t)
	_, err = d.LoadSearch(&results.Profile{})
	if !errors.As(err, &ce) || !errors.Is(err, fs.ErrNotExist) || len(ce.Hints) != 1 || ce.Hints[0][0] != "search" {
		t.Fatalf("LoadSearch of an empty directory: %v (%#v)", err, ce)
	}
	if got := pipeline.Render(err, names); !strings.Contains(got, "(run 'hello search --out ") || strings.HasPrefix(got, "pipeline: ") {
		t.Errorf("rendered %q", got)
	}
}

// The pipeline's defaults take the algorithms' own: one declaration each.
func TestDefaultConfigTakesDivergenceDefaults(t *testing.T) {
	def := pipeline.DefaultConfig(nil, nil)
	if def.Walks != divergence.DefaultWalks || def.Confirm != divergence.DefaultConfirm {
		t.Errorf("DefaultConfig walks %d confirm %d, divergence's %d and %d", def.Walks, def.Confirm, divergence.DefaultWalks, divergence.DefaultConfirm)
	}
	if err := def.Validate(); err != nil {
		t.Errorf("DefaultConfig is invalid: %v", err)
	}
}
