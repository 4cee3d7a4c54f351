package timedsim

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Param declares a system parameter: a knob of the protocol or a choice of
// scenario that a user sets on the command line with --param name=value
// (etcdraft's scenario=rejoin or tick=50ms, say). A system's parameters
// reach its BuildParams with every value resolved, enter the configuration
// hash, and are recorded in path files, so that a path replays with the
// values it was made with and a stale one is refused.
type Param struct {
	// Name is what --param sets: letters, digits, '-', '_' and '.'.
	Name string
	// Default is the value used when none is given. It must pass Values
	// and Check.
	Default string
	// Doc is one line describing the parameter (macepc systems shows it).
	Doc string
	// Values, if not empty, lists the accepted values (an enumeration,
	// such as a scenario's name).
	Values []string
	// Check, if set, validates a value; its error is shown to the user
	// after the parameter's name. CheckInt, CheckDuration and CheckBool
	// match the Params getters.
	Check func(value string) error
}

// check validates value against the declaration; the error names the
// parameter.
func (p Param) check(value string) error {
	if strings.ContainsAny(value, "\n\r") {
		return fmt.Errorf("parameter %s: value %q spans lines", p.Name, value)
	}
	if len(p.Values) > 0 && !slices.Contains(p.Values, value) {
		return fmt.Errorf("parameter %s: value %q is not one of %s", p.Name, value, strings.Join(p.Values, ", "))
	}
	if p.Check != nil {
		if err := p.Check(value); err != nil {
			return fmt.Errorf("parameter %s: value %q: %v", p.Name, value, err)
		}
	}
	return nil
}

func validParamName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return true
}

// CheckInt accepts a decimal integer in [min, max] (Params.Int reads it).
func CheckInt(min, max int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			return fmt.Errorf("not an integer")
		case n < min || n > max:
			return fmt.Errorf("out of range [%d, %d]", min, max)
		}
		return nil
	}
}

// CheckDuration accepts a Go duration ("100ms", "2s") of at least min
// (Params.Duration reads it).
func CheckDuration(min time.Duration) func(string) error {
	return func(v string) error {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			return fmt.Errorf("not a duration (e.g. 100ms, 2s)")
		case d < min:
			return fmt.Errorf("below the minimum %v", min)
		}
		return nil
	}
}

// CheckFloat accepts a decimal number in [min, max] (Params.Float reads
// it); NaN and infinities are refused.
func CheckFloat(min, max float64) func(string) error {
	return func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		switch {
		case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
			return fmt.Errorf("not a number")
		case f < min || f > max:
			return fmt.Errorf("out of range [%g, %g]", min, max)
		}
		return nil
	}
}

// CheckBool accepts true or false (Params.Bool reads it).
func CheckBool(v string) error {
	if v != "true" && v != "false" {
		return fmt.Errorf("not true or false")
	}
	return nil
}

// Params are the values of a system's parameters by name, every declared
// parameter present once resolved by System.ScenarioParams.
type Params map[string]string

// Get returns the value of parameter name. Asking for an undeclared
// parameter is a caller bug: it panics.
func (p Params) Get(name string) string {
	v, ok := p[name]
	if !ok {
		panic(fmt.Sprintf("timedsim: no parameter %q among the resolved values", name))
	}
	return v
}

// Int returns parameter name as an integer; declare it with CheckInt (a
// value that does not parse is a caller bug: it panics).
func (p Params) Int(name string) int {
	n, err := strconv.Atoi(p.Get(name))
	if err != nil {
		panic(fmt.Sprintf("timedsim: parameter %q is not an integer (declare it with CheckInt): %v", name, err))
	}
	return n
}

// Duration returns parameter name as a duration; declare it with
// CheckDuration.
func (p Params) Duration(name string) time.Duration {
	d, err := time.ParseDuration(p.Get(name))
	if err != nil {
		panic(fmt.Sprintf("timedsim: parameter %q is not a duration (declare it with CheckDuration): %v", name, err))
	}
	return d
}

// Float returns parameter name as a number; declare it with CheckFloat.
func (p Params) Float(name string) float64 {
	f, err := strconv.ParseFloat(p.Get(name), 64)
	if err != nil {
		panic(fmt.Sprintf("timedsim: parameter %q is not a number (declare it with CheckFloat): %v", name, err))
	}
	return f
}

// Bool returns parameter name as a boolean; declare it with CheckBool.
func (p Params) Bool(name string) bool {
	switch v := p.Get(name); v {
	case "true":
		return true
	case "false":
		return false
	default:
		panic(fmt.Sprintf("timedsim: parameter %q is %q, not true or false (declare it with CheckBool)", name, v))
	}
}

// String renders the values canonically, sorted by name:
// "scenario=rejoin,tick=100ms" ("" for none).
func (p Params) String() string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(p)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + p[k])
	}
	return b.String()
}

// ParseParam splits the command-line form "name=value" at the first '='.
func ParseParam(spec string) (name, value string, err error) {
	name, value, ok := strings.Cut(spec, "=")
	if !ok || name == "" {
		return "", "", fmt.Errorf("timedsim: parameter %q is not name=value", spec)
	}
	return name, value, nil
}

// ParamNames lists the declared parameters' names in declaration order.
func (s System) ParamNames() []string {
	out := make([]string, len(s.Params))
	for i, p := range s.Params {
		out[i] = p.Name
	}
	return out
}

// ResolveParams checks set against the system's declarations and returns
// every declared parameter's value: set's, or the default. Unknown names
// and invalid values are errors that name the choices.
func (s System) ResolveParams(set Params) (Params, error) {
	if len(s.Params) == 0 {
		if len(set) > 0 {
			return nil, fmt.Errorf("timedsim: system %q has no parameters (got %s)", s.Name, set)
		}
		return nil, nil
	}
	out := make(Params, len(s.Params))
	for _, p := range s.Params {
		if !validParamName(p.Name) {
			return nil, fmt.Errorf("timedsim: system %q declares a parameter with an invalid name %q", s.Name, p.Name)
		}
		if _, dup := out[p.Name]; dup {
			return nil, fmt.Errorf("timedsim: system %q declares parameter %q twice", s.Name, p.Name)
		}
		if err := p.check(p.Default); err != nil {
			return nil, fmt.Errorf("timedsim: system %q: the default of %v", s.Name, err)
		}
		out[p.Name] = p.Default
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		i := slices.IndexFunc(s.Params, func(p Param) bool { return p.Name == k })
		if i < 0 {
			return nil, fmt.Errorf("timedsim: system %q has no parameter %q (parameters: %s)", s.Name, k, strings.Join(s.ParamNames(), ", "))
		}
		if err := s.Params[i].check(set[k]); err != nil {
			return nil, fmt.Errorf("timedsim: system %q: %v", s.Name, err)
		}
		out[k] = set[k]
	}
	return out, nil
}
