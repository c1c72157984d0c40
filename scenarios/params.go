package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a parameter's value.
type Kind uint8

// Parameter kinds.
const (
	Int Kind = iota
	Float
	Bool
	Duration
	String
	Enum
)

var kindNames = [...]string{"int", "float", "bool", "duration", "string", "enum"}

// String returns the kind's name.
func (k Kind) String() string { return kindNames[k] }

// Param documents one scenario parameter: its key (Kafka's config name
// where there is one), type, default, unit, meaning and allowed range.
type Param struct {
	Key     string
	Kind    Kind
	Default string
	// Unit is printed after values, e.g. "ms", "records", "probability".
	Unit string
	Doc  string
	// Min and Max bound Int, Float and Duration values (Duration in
	// nanoseconds). Both zero means unbounded.
	Min, Max float64
	// Values lists the allowed values of an Enum.
	Values []string
}

// check parses s as p's kind and checks its range.
func (p *Param) check(s string) error {
	var v float64
	switch p.Kind {
	case Int:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%s=%q is not an integer", p.Key, s)
		}
		v = float64(n)
	case Float:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s=%q is not a number", p.Key, s)
		}
		v = f
	case Bool:
		if _, err := strconv.ParseBool(s); err != nil {
			return fmt.Errorf("%s=%q is not a boolean (allowed: true, false)", p.Key, s)
		}
		return nil
	case Duration:
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%s=%q is not a duration (e.g. 250ms, 1.5s)", p.Key, s)
		}
		v = float64(d)
	case String:
		return nil
	case Enum:
		if !slices.Contains(p.Values, s) {
			return fmt.Errorf("%s=%q is not allowed (allowed: %s)", p.Key, s, strings.Join(p.Values, ", "))
		}
		return nil
	}
	if (p.Min != 0 || p.Max != 0) && (v < p.Min || v > p.Max) {
		return fmt.Errorf("%s=%s is out of range (allowed: %s)", p.Key, s, p.rangeText())
	}
	return nil
}

func (p *Param) rangeText() string {
	f := func(x float64) string {
		switch p.Kind {
		case Duration:
			return time.Duration(x).String()
		case Int:
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return f(p.Min) + ".." + f(p.Max)
}

// Allowed describes the values p accepts, for -describe.
func (p *Param) Allowed() string {
	switch p.Kind {
	case Enum:
		return strings.Join(p.Values, "|")
	case Bool:
		return "true|false"
	case String:
		return "text"
	}
	if p.Min != 0 || p.Max != 0 {
		return p.rangeText()
	}
	return p.Kind.String()
}

// Values is a full assignment of a scenario's parameters, every key with its
// value, defaults filled in.
type Values struct {
	params []Param
	vals   map[string]string
	// explicit records keys set by the user (not defaults).
	explicit map[string]bool
}

// newValues returns the defaults of params.
func newValues(params []Param) *Values {
	v := &Values{params: params, vals: make(map[string]string), explicit: make(map[string]bool)}
	for _, p := range params {
		v.vals[p.Key] = p.Default
	}
	return v
}

// Params returns the parameter definitions, sorted by key.
func (v *Values) Params() []Param { return v.params }

func (v *Values) param(key string) *Param {
	for i := range v.params {
		if v.params[i].Key == key {
			return &v.params[i]
		}
	}
	return nil
}

// Set assigns key=val after checking it. The error names the key and what
// is allowed.
func (v *Values) Set(key, val string) error {
	p := v.param(key)
	if p == nil {
		return fmt.Errorf("unknown parameter %q (see -describe for the list)", key)
	}
	if err := p.check(val); err != nil {
		return err
	}
	v.vals[key] = val
	v.explicit[key] = true
	return nil
}

// setDefault overrides a default without marking the key explicit.
func (v *Values) setDefault(key, val string) {
	p := v.param(key)
	if p == nil {
		panic("scenarios: override of unknown parameter " + key)
	}
	if err := p.check(val); err != nil {
		panic("scenarios: bad override: " + err.Error())
	}
	v.vals[key] = val
}

// Explicit reports whether the user set key.
func (v *Values) Explicit(key string) bool { return v.explicit[key] }

// Get returns key's value as text.
func (v *Values) Get(key string) string {
	s, ok := v.vals[key]
	if !ok {
		panic("scenarios: unknown parameter " + key)
	}
	return s
}

// Int returns an Int parameter.
func (v *Values) Int(key string) int64 {
	n, _ := strconv.ParseInt(v.Get(key), 10, 64)
	return n
}

// Float returns a Float parameter.
func (v *Values) Float(key string) float64 {
	f, _ := strconv.ParseFloat(v.Get(key), 64)
	return f
}

// Bool returns a Bool parameter.
func (v *Values) Bool(key string) bool {
	b, _ := strconv.ParseBool(v.Get(key))
	return b
}

// Duration returns a Duration parameter.
func (v *Values) Duration(key string) time.Duration {
	d, _ := time.ParseDuration(v.Get(key))
	return d
}

// Millis returns an Int parameter counted in milliseconds as a duration.
func (v *Values) Millis(key string) time.Duration {
	return time.Duration(v.Int(key)) * time.Millisecond
}

// KV is one key and value.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// List returns every parameter's value, sorted by key.
func (v *Values) List() []KV {
	out := make([]KV, 0, len(v.params))
	for _, p := range v.params {
		out = append(out, KV{p.Key, v.vals[p.Key]})
	}
	slices.SortFunc(out, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
	return out
}
