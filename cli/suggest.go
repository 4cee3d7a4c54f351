package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/macepc/macepc/timedsim"
)

// closest are the names of candidates nearest to name by edit distance,
// at most a third of name's length away (at least one edit), or those that
// begin with name: the "did you mean" of a typo. None when name is far
// from every candidate.
func closest(name string, candidates []string) []string {
	best, out := -1, []string(nil)
	limit := max(1, len(name)/3)
	for _, c := range candidates {
		d := levenshtein.ComputeDistance(strings.ToLower(name), strings.ToLower(c))
		if name != "" && strings.HasPrefix(strings.ToLower(c), strings.ToLower(name)) {
			d = min(d, limit)
		}
		switch {
		case d > limit:
		case best < 0 || d < best:
			best, out = d, []string{c}
		case d == best:
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// unknownName is the error for a name that is not among known: `unknown
// what "randtre"; did you mean randtree? (systems: ...)`.
func unknownName(what, name, listName string, known []string) error {
	known = slices.Sorted(slices.Values(known))
	hint := ""
	if c := closest(name, known); len(c) > 0 {
		hint = "; did you mean " + strings.Join(c, " or ") + "?"
	}
	return fmt.Errorf("unknown %s %q%s (%s: %s)", what, name, hint, listName, strings.Join(known, ", "))
}

// lookupSystem is the system named name, or an error that suggests the
// closest names.
func (a *app) lookupSystem(name string) (timedsim.System, error) {
	for _, s := range a.reg {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(a.reg))
	for i, s := range a.reg {
		names[i] = s.Name
	}
	return timedsim.System{}, unknownName("system", name, "systems", names)
}

// resolveVariant is sys's variant named v (its default for ""), or an
// error that suggests the closest names.
func resolveVariant(sys timedsim.System, v string) (string, error) {
	v = sys.ResolveVariant(v)
	names := sys.VariantNames()
	if len(names) == 0 || slices.Contains(names, v) {
		return v, nil
	}
	return "", unknownName("variant", v, "variants of "+sys.Name, names)
}

// checkParams refuses a --param that sys does not declare, suggesting the
// closest names.
func checkParams(sys timedsim.System, params timedsim.Params) error {
	names := sys.ParamNames()
	if len(names) == 0 {
		return nil // timedsim says that the system has no parameters
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if !slices.Contains(names, k) {
			return fmt.Errorf("--param: %w", unknownName("parameter", k, "parameters of "+sys.Name, names))
		}
	}
	return nil
}
