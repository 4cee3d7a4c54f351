package pipeline_test

import (
	"errors"
	"fmt"

	"github.com/macepc/macepc/pipeline"
)

// A configuration's error names its field for a Go caller; a front end
// renders it with its own names (here a command line whose flag for
// DivergeConfig.Walks is --walks).
func ExampleConfigError() {
	cfg := pipeline.DivergeConfig{Walks: 0}
	err := cfg.Validate()
	fmt.Println(err)

	var ce *pipeline.ConfigError
	if errors.As(err, &ce) {
		fmt.Println("field:", ce.Field)
	}
	flags := map[string]string{"DivergeConfig.Walks": "--walks"}
	fmt.Println(pipeline.Render(err, pipeline.Names{Program: "mytool", Field: func(f string) string { return flags[f] }}))
	// Output:
	// pipeline: DivergeConfig.Walks must be at least 1, got 0
	// field: DivergeConfig.Walks
	// --walks must be at least 1, got 0
}
