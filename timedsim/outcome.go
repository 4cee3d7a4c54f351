package timedsim

import "fmt"

// MarshalText is the outcome's name (String): results files say
// "timed-out", not 1. An Outcome without a name is an error.
func (o Outcome) MarshalText() ([]byte, error) {
	if o < 0 || int(o) >= len(outcomeNames) {
		return nil, fmt.Errorf("timedsim: outcome %d has no name", int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText reads an outcome's name (String); any other text is an
// error.
func (o *Outcome) UnmarshalText(text []byte) error {
	for i, n := range outcomeNames {
		if n == string(text) {
			*o = Outcome(i)
			return nil
		}
	}
	return fmt.Errorf("timedsim: unknown outcome %q", text)
}
