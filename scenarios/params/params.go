package params

import (
	"errors"
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
	// Min and Max bound an Int value, and a Duration value in
	// nanoseconds, exactly: values are compared with them as integers and
	// -describe prints them as they are. Both zero means unbounded.
	Min, Max int64
	// MinF and MaxF bound a Float value. Both zero means unbounded.
	MinF, MaxF float64
	// Values lists the allowed values of an Enum.
	Values []string
}

// check parses s as p's kind and checks its range. Integers and
// durations are compared with the bounds as integers, floats as floats,
// so the bound [Param.Allowed] prints is exactly the one enforced.
func (p *Param) check(s string) error {
	outOfRange := func() error {
		return fmt.Errorf("%s=%s is out of range (allowed: %s)", p.Key, s, p.rangeText())
	}
	switch p.Kind {
	case Int:
		n, err := strconv.ParseInt(s, 10, 64)
		if errors.Is(err, strconv.ErrRange) && p.Bounded() {
			return outOfRange() // beyond int64, so beyond the bounds too
		}
		if err != nil {
			return fmt.Errorf("%s=%q is not an integer", p.Key, s)
		}
		if p.Bounded() && (n < p.Min || n > p.Max) {
			return outOfRange()
		}
	case Float:
		f, err := strconv.ParseFloat(s, 64)
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) && p.Bounded() {
			return outOfRange()
		}
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s=%q is not a number", p.Key, s)
		}
		if p.Bounded() && (f < p.MinF || f > p.MaxF) {
			return outOfRange()
		}
	case Bool:
		if _, err := strconv.ParseBool(s); err != nil {
			return fmt.Errorf("%s=%q is not a boolean (allowed: true, false)", p.Key, s)
		}
	case Duration:
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%s=%q is not a duration (e.g. 250ms, 1.5s)", p.Key, s)
		}
		if p.Bounded() && (int64(d) < p.Min || int64(d) > p.Max) {
			return outOfRange()
		}
	case String:
	case Enum:
		if !slices.Contains(p.Values, s) && (p.Key == "kafka.version" || p.Key == "broker.version" || p.Key == "client.version") {
			return fmt.Errorf("%s=%q is not a Kafka release the model covers: 3.0 to %s (the latest covered; docs/versions.md)", p.Key, s, LatestKafkaVersion)
		}
		if !slices.Contains(p.Values, s) {
			return fmt.Errorf("%s=%q is not allowed (allowed: %s)", p.Key, s, strings.Join(p.Values, ", "))
		}
	}
	return nil
}

// Bounded reports whether p, an Int, Float or Duration, has a range:
// [Param.Min] and [Param.Max], or for a Float [Param.MinF] and
// [Param.MaxF].
func (p *Param) Bounded() bool {
	if p.Kind == Float {
		return p.MinF != 0 || p.MaxF != 0
	}
	return p.Min != 0 || p.Max != 0
}

// rangeText is "MIN..MAX", each bound printed exactly: an integer as it
// is, a duration as [time.Duration.String] prints it (which
// [time.ParseDuration] reads back to the same nanosecond), a float in the
// shortest form that reads back to the same float64.
func (p *Param) rangeText() string {
	switch p.Kind {
	case Float:
		return strconv.FormatFloat(p.MinF, 'g', -1, 64) + ".." + strconv.FormatFloat(p.MaxF, 'g', -1, 64)
	case Duration:
		return time.Duration(p.Min).String() + ".." + time.Duration(p.Max).String()
	}
	return strconv.FormatInt(p.Min, 10) + ".." + strconv.FormatInt(p.Max, 10)
}

// Allowed describes the values p accepts, for -describe. A range's
// bounds are the ones [Values.Set] enforces, printed exactly; both are
// allowed.
func (p *Param) Allowed() string {
	switch p.Kind {
	case Enum:
		return strings.Join(p.Values, "|")
	case Bool:
		return "true|false"
	case String:
		return "text"
	}
	if p.Bounded() {
		return p.rangeText()
	}
	return p.Kind.String()
}

// Values is a full assignment of a scenario's parameters, every key with its
// value, defaults filled in, and where each value came from ([Source]).
type Values struct {
	params []Param
	vals   map[string]string
	// src is where each key's value came from.
	src map[string]Source
	// own are the own defaults of the parameters whose default the
	// scenario overrides.
	own map[string]string
	// cfg is the typed configuration, decoded once by Resolve.
	cfg *Config
	// designNotes are the rules across parameters the values break (the
	// run is outside Kafka's design), set by Decode; Resolve reports
	// them as configuration notes.
	designNotes []string
}

// newValues returns the defaults of params.
func newValues(params []Param) *Values {
	v := &Values{params: params, vals: make(map[string]string, len(params)), src: make(map[string]Source), own: make(map[string]string)}
	for _, p := range params {
		v.vals[p.Key] = p.Default
	}
	return v
}

// Params returns the parameter definitions, sorted by key.
func (v *Values) Params() []Param { return v.params }

// Keys returns every parameter's key, in definition order.
func (v *Values) Keys() []string { return v.keys() }

func (v *Values) keys() []string {
	keys := make([]string, len(v.params))
	for i := range v.params {
		keys[i] = v.params[i].Key
	}
	return keys
}

// Param returns key's definition, or nil for an unknown key.
func (v *Values) Param(key string) *Param {
	for i := range v.params {
		if v.params[i].Key == key {
			return &v.params[i]
		}
	}
	return nil
}

// Set assigns key=val after checking it, as the command line's -set does
// (level [LevelSet]). The error names the key and what is allowed.
func (v *Values) Set(key, val string) error {
	return v.SetFrom(Source{Level: LevelSet}, key, val)
}

// SetFrom assigns key=val after checking it, recording src as where the
// value came from. Levels are applied weakest first (scenarios.Resolve), so the
// last assignment is the strongest. The error names the key and what is
// allowed.
func (v *Values) SetFrom(src Source, key, val string) error {
	p := v.Param(key)
	if p == nil {
		return fmt.Errorf("unknown parameter %q%s (see -describe for the list)", key, DidYouMean(key, v.keys()))
	}
	if err := p.check(val); err != nil {
		return err
	}
	if err := checkDecode(p, val); err != nil {
		return err
	}
	v.vals[key] = val
	v.src[key] = src
	return nil
}

// ScenarioValues returns the parameters every scenario has ([Common]) and
// a scenario's extra ones, sorted by key, at the scenario's defaults
// (level [LevelScenario]); each default it overrides becomes the
// parameter's shown default, and [Values.OwnDefault] keeps the common one.
func ScenarioValues(extra []Param, defaults []KV) *Values {
	ps := append(Common(), extra...)
	slices.SortFunc(ps, func(a, b Param) int { return strings.Compare(a.Key, b.Key) })
	v := newValues(ps)
	for _, kv := range defaults {
		v.setDefault(kv.Key, kv.Value)
		for i := range v.params {
			if v.params[i].Key == kv.Key {
				v.params[i].Default = kv.Value
			}
		}
	}
	return v
}

// setDefault overrides a default with the scenario's (level
// [LevelScenario]).
func (v *Values) setDefault(key, val string) {
	if d, ok := v.vals[key]; ok && v.src[key].Level == LevelDefault {
		v.own[key] = d
	}
	if err := v.SetFrom(Source{Level: LevelScenario}, key, val); err != nil {
		panic("params: bad scenario default: " + err.Error())
	}
}

// Explicit reports whether the user set key: its value comes from a
// preset, the scenario file, a -bug or the command line, not from a
// default, a profile or the scenario.
func (v *Values) Explicit(key string) bool { return v.src[key].Level >= LevelPreset }

// Source returns where key's value came from.
func (v *Values) Source(key string) Source {
	if _, ok := v.vals[key]; !ok {
		panic("params: unknown parameter " + key)
	}
	return v.src[key]
}

// OwnDefault returns key's own default, the value at [LevelDefault]
// (before the scenario's default).
func (v *Values) OwnDefault(key string) string {
	if d, ok := v.own[key]; ok {
		return d
	}
	if p := v.Param(key); p != nil {
		return p.Default
	}
	panic("params: unknown parameter " + key)
}

// Settle decodes v into its typed Config once every level of precedence
// has been applied ([Values.Decode]), checks the replication parameters,
// and keeps the Config for [Values.Config]. A run's Resolve calls it once.
func (v *Values) Settle() (*Config, error) {
	c, err := v.Decode()
	if err != nil {
		return nil, err
	}
	if err := c.checkReplication(); err != nil {
		return nil, err
	}
	v.cfg = &c
	return v.cfg, nil
}

// DesignNotes returns the rules across parameters that the values break
// (the run is outside Kafka's design), found by [Values.Decode]; a run
// reports them as configuration notes.
func (v *Values) DesignNotes() []string { return v.designNotes }

// Config returns the typed configuration that [Values.Settle] decoded from v.
// It panics for values that were not resolved.
func (v *Values) Config() *Config {
	if v.cfg == nil {
		panic("params: Values.Config before Resolve")
	}
	return v.cfg
}

// Get returns key's value as text.
func (v *Values) Get(key string) string {
	s, ok := v.vals[key]
	if !ok {
		panic("params: unknown parameter " + key)
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
