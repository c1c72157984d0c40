package sweep

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/plots"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// MaxAxes is the most parameter axes a sweep may vary.
const MaxAxes = 2

// maxAxisValues bounds one axis, to catch a mistyped step.
const maxAxisValues = 1000

// Axis is one varied parameter and its values, in order.
type Axis struct {
	Key string `json:"key"`
	// Spec is the -vary text the axis came from.
	Spec   string   `json:"spec"`
	Values []string `json:"values"`
	// Kind and Unit describe the parameter (params.Param).
	Kind string `json:"kind"`
	Unit string `json:"unit,omitempty"`
	// Auto is N of key=FROM:TO:autoN: the sweep starts on a coarse grid
	// (Values as parsed) and adds points until it has N ([Run]). Added
	// lists the values the refinement added, in the order it added them;
	// Values are then sorted.
	Auto  int      `json:"auto,omitempty"`
	Added []string `json:"added,omitempty"`
	// Stopped says why the refinement stopped short of N points.
	Stopped string `json:"stopped,omitempty"`
}

// AxisSyntax describes what ParseAxis accepts, for error messages.
const AxisSyntax = "key=FROM:TO:STEP, key=FROM:TO:autoN or key=V1,V2,... with a -set key"

// ParseAxis parses key=FROM:TO:STEP (numbers or durations, TO included
// when the steps land on it) or key=V1,V2,... (any kind) and checks every
// value against the scenario's parameter.
func ParseAxis(sc *scenarios.Scenario, spec string) (Axis, error) {
	key, rng, ok := strings.Cut(spec, "=")
	if !ok || key == "" || rng == "" {
		return Axis{}, fmt.Errorf("%q is not allowed (allowed: %s)", spec, AxisSyntax)
	}
	if key == "enable.idempotence" {
		return Axis{}, fmt.Errorf("%q: both modes are swept already; use -idempotence to keep one", spec)
	}
	vals := sc.Values()
	var p *params.Param
	for _, q := range vals.Params() {
		if q.Key == key {
			p = &q
			break
		}
	}
	if p == nil {
		return Axis{}, fmt.Errorf("%q: unknown parameter %q%s (see -describe %s)", spec, key, params.DidYouMean(key, vals.Keys()), sc.Name)
	}
	ax := Axis{Key: key, Spec: spec, Kind: p.Kind.String(), Unit: p.Unit}
	if p.Kind == params.Duration && ax.Unit == "" {
		ax.Unit = "duration"
	}
	if parts := strings.Split(rng, ":"); len(parts) == 3 && strings.HasPrefix(parts[2], "auto") {
		n, err := strconv.Atoi(strings.TrimPrefix(parts[2], "auto"))
		if err != nil || n < 3 || n > maxAxisValues {
			return Axis{}, fmt.Errorf("%q: autoN wants N in 3..%d", spec, maxAxisValues)
		}
		ax.Auto = n
		ax.Values, err = coarse(p.Kind, parts[0], parts[1], n)
		if err != nil {
			return Axis{}, fmt.Errorf("%q: %v", spec, err)
		}
	} else if len(parts) == 3 {
		var err error
		ax.Values, err = steps(p.Kind, parts[0], parts[1], parts[2])
		if err != nil {
			return Axis{}, fmt.Errorf("%q: %v", spec, err)
		}
	} else if strings.Contains(rng, ":") {
		return Axis{}, fmt.Errorf("%q is not allowed (allowed: %s)", spec, AxisSyntax)
	} else {
		ax.Values = strings.Split(rng, ",")
	}
	if len(ax.Values) > maxAxisValues {
		return Axis{}, fmt.Errorf("%q gives %d values (allowed: at most %d)", spec, len(ax.Values), maxAxisValues)
	}
	for i, v := range ax.Values {
		if err := vals.Set(key, v); err != nil {
			return Axis{}, fmt.Errorf("%q: %v", spec, err)
		}
		for _, w := range ax.Values[:i] {
			if w == v {
				return Axis{}, fmt.Errorf("%q repeats the value %s", spec, v)
			}
		}
	}
	return ax, nil
}

// steps lists from, from+step, ... up to to, exactly (decimal arithmetic
// for floats, so 0:0.3:0.1 gives 0, 0.1, 0.2, 0.3).
func steps(kind params.Kind, from, to, step string) ([]string, error) {
	var out []string
	switch kind {
	case params.Int, params.Float:
		a, ok1 := new(big.Rat).SetString(from)
		b, ok2 := new(big.Rat).SetString(to)
		s, ok3 := new(big.Rat).SetString(step)
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("FROM:TO:STEP must be numbers")
		}
		if s.Sign() <= 0 || a.Cmp(b) > 0 {
			return nil, fmt.Errorf("want FROM <= TO and STEP > 0")
		}
		for x := new(big.Rat).Set(a); x.Cmp(b) <= 0 && len(out) <= maxAxisValues; x.Add(x, s) {
			if kind == params.Int {
				if !x.IsInt() {
					return nil, fmt.Errorf("FROM and STEP must be integers")
				}
				out = append(out, x.Num().String())
				continue
			}
			f, _ := x.Float64()
			out = append(out, strconv.FormatFloat(f, 'f', -1, 64))
		}
	case params.Duration:
		a, err1 := time.ParseDuration(from)
		b, err2 := time.ParseDuration(to)
		s, err3 := time.ParseDuration(step)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("FROM:TO:STEP must be durations (e.g. 100ms:1s:100ms)")
		}
		if s <= 0 || a > b {
			return nil, fmt.Errorf("want FROM <= TO and STEP > 0")
		}
		for x := a; x <= b && len(out) <= maxAxisValues; x += s {
			out = append(out, x.String())
		}
	default:
		return nil, fmt.Errorf("a %s parameter takes a list V1,V2,..., not FROM:TO:STEP", kind)
	}
	return out, nil
}

// numeric returns the axis values as numbers for a chart's X axis:
// durations in ms; non-numeric kinds by their index.
func (a *Axis) numeric() (xs []float64, label string) {
	label = a.Key
	switch a.Kind {
	case "int", "float":
		for _, v := range a.Values {
			f, _ := strconv.ParseFloat(v, 64)
			xs = append(xs, f)
		}
		if a.Unit != "" && !strings.HasSuffix(a.Key, "."+a.Unit) {
			label += " (" + a.Unit + ")"
		}
	case "duration":
		for _, v := range a.Values {
			d, _ := time.ParseDuration(v)
			xs = append(xs, float64(d)/1e6)
		}
		label += " (ms)"
	default:
		// A category's position: its index (charts label it with the
		// value, categories).
		for i := range a.Values {
			xs = append(xs, float64(i))
		}
	}
	return xs, label
}

// categorical reports whether the axis's values are categories (an enum,
// a bool, a text such as a link latency spec): charted as points side by
// side, never as a line.
func (a *Axis) categorical() bool {
	return a.Kind != "int" && a.Kind != "float" && a.Kind != "duration"
}

// categories returns a categorical axis's tick labels (the values, or
// v1, v2, ... when one is too long to draw) and, when abbreviated, the
// footnote line that spells them out; nil for a numeric axis.
func (a *Axis) categories() (labels []string, note string) {
	if !a.categorical() {
		return nil, ""
	}
	labels, short := plots.Abbreviate(a.Values)
	if short {
		parts := make([]string, len(a.Values))
		for i, v := range a.Values {
			parts[i] = labels[i] + " = " + v
		}
		note = a.Key + ": " + strings.Join(parts, " | ")
	}
	return labels, note
}

// coarseCount is how many of autoN's points the first, even grid has; the
// refinement adds the rest.
func coarseCount(n int) int { return max(3, (n+1)/2) }

// coarse returns the first grid of FROM:TO:autoN: coarseCount(n) values
// evenly spread from FROM to TO (integers rounded, durations to the
// millisecond when the spacing allows), without repeats.
func coarse(kind params.Kind, from, to string, n int) ([]string, error) {
	a, b, err := axisBounds(kind, from, to)
	if err != nil {
		return nil, err
	}
	k := coarseCount(n)
	var out []string
	for i := range k {
		x := a + (b-a)*float64(i)/float64(k-1)
		if i == k-1 {
			x = b
		}
		v := formatValue(kind, x, (b-a)/float64(k-1))
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// axisBounds parses FROM and TO of a numeric or duration axis as numbers
// (durations in ns).
func axisBounds(kind params.Kind, from, to string) (a, b float64, err error) {
	switch kind {
	case params.Int, params.Float:
		var err1, err2 error
		a, err1 = strconv.ParseFloat(from, 64)
		b, err2 = strconv.ParseFloat(to, 64)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("FROM:TO must be numbers")
		}
	case params.Duration:
		x, err1 := time.ParseDuration(from)
		y, err2 := time.ParseDuration(to)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("FROM:TO must be durations (e.g. 100ms:10s)")
		}
		a, b = float64(x), float64(y)
	default:
		return 0, 0, fmt.Errorf("a %s parameter takes a list V1,V2,..., not FROM:TO:autoN", kind)
	}
	if a >= b {
		return 0, 0, fmt.Errorf("want FROM < TO")
	}
	return a, b, nil
}

// formatValue writes x (ns for durations) as an axis value: integers
// rounded, durations rounded to the millisecond when spacing is at least
// 2ms, floats to 6 significant digits.
func formatValue(kind params.Kind, x, spacing float64) string {
	switch kind {
	case params.Int:
		return strconv.FormatInt(int64(math.Round(x)), 10)
	case params.Duration:
		d := time.Duration(math.Round(x))
		if spacing >= 2e6 {
			d = d.Round(time.Millisecond)
		}
		return d.String()
	default:
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
}

// parseValue reads an axis value as a number (ns for durations).
func parseValue(kind string, v string) float64 {
	if kind == "duration" {
		d, _ := time.ParseDuration(v)
		return float64(d)
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// xUnit is the unit of the axis's numbers on a chart: "ms" for a
// duration, else the parameter's unit.
func (a *Axis) xUnit() string {
	if a.Kind == "duration" {
		return "ms"
	}
	if a.Kind == "int" || a.Kind == "float" {
		return a.Unit
	}
	return ""
}

// kind returns the axis's params.Kind.
func (a *Axis) kind() params.Kind {
	switch a.Kind {
	case "int":
		return params.Int
	case "float":
		return params.Float
	case "duration":
		return params.Duration
	}
	return params.String
}
