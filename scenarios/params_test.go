package scenarios

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios/params"
)

// printedBounds splits the range -describe prints for p ([params.Param.Allowed],
// "LO..HI") into its two bounds, as text.
func printedBounds(t *testing.T, p *params.Param) (lo, hi string) {
	t.Helper()
	lo, hi, ok := strings.Cut(p.Allowed(), "..")
	if !ok {
		t.Fatalf("%s: -describe prints %q, not a range LO..HI", p.Key, p.Allowed())
	}
	return lo, hi
}

// beyond returns the values just outside p's printed bounds: one less than
// the minimum and one more than the maximum (an integer, a nanosecond, the
// next float64). A bound at the end of int64 has an integer beyond it that
// no longer parses as an int64; a duration has none ("").
func beyond(t *testing.T, p *params.Param, lo, hi string) (below, above string) {
	t.Helper()
	switch p.Kind {
	case params.Int:
		l, okL := new(big.Int).SetString(lo, 10)
		h, okH := new(big.Int).SetString(hi, 10)
		if !okL || !okH {
			t.Fatalf("%s: printed bounds %s..%s are not integers", p.Key, lo, hi)
		}
		return l.Sub(l, big.NewInt(1)).String(), h.Add(h, big.NewInt(1)).String()
	case params.Duration:
		l, errL := time.ParseDuration(lo)
		h, errH := time.ParseDuration(hi)
		if errL != nil || errH != nil {
			t.Fatalf("%s: printed bounds %s..%s are not durations", p.Key, lo, hi)
		}
		if l > math.MinInt64 {
			below = (l - 1).String()
		}
		if h < math.MaxInt64 {
			above = (h + 1).String()
		}
		return below, above
	case params.Float:
		l, errL := strconv.ParseFloat(lo, 64)
		h, errH := strconv.ParseFloat(hi, 64)
		if errL != nil || errH != nil {
			t.Fatalf("%s: printed bounds %s..%s are not numbers", p.Key, lo, hi)
		}
		return strconv.FormatFloat(math.Nextafter(l, math.Inf(-1)), 'g', -1, 64),
			strconv.FormatFloat(math.Nextafter(h, math.Inf(1)), 'g', -1, 64)
	}
	t.Fatalf("%s: a %s has no range", p.Key, p.Kind)
	return "", ""
}

// TestPrintedBoundsAreEnforced walks every parameter of every scenario:
// each Int, Float and Duration has a range; its printed minimum and
// maximum are accepted, decode into the parameter's Config field exactly
// (with idempotence off, so that no rule joining several parameters
// applies), and the values just beyond them are refused with one line that names the
// key and the printed range.
func TestPrintedBoundsAreEnforced(t *testing.T) {
	for _, sc := range All() {
		t.Run(sc.Name, func(t *testing.T) {
			for _, p := range sc.Values().Params() {
				if p.Kind != params.Int && p.Kind != params.Float && p.Kind != params.Duration {
					continue
				}
				if !p.Bounded() {
					t.Errorf("%s: a %s without a range (set Min and Max, or MinF and MaxF)", p.Key, p.Kind)
					continue
				}
				if p.Kind == params.Float && (p.Min != 0 || p.Max != 0) || p.Kind != params.Float && (p.MinF != 0 || p.MaxF != 0) {
					t.Errorf("%s: a %s bounded by the other kind's fields", p.Key, p.Kind)
				}
				lo, hi := printedBounds(t, &p)
				for _, val := range []string{lo, hi} {
					v := sc.Values()
					// With idempotence, the rule that joins sequence.bits,
					// broker.window, max.in.flight.requests.per.connection
					// and batch.size narrows their ranges
					// (TestSequenceBitsRule).
					if err := v.Set("enable.idempotence", "false"); err != nil {
						t.Fatal(err)
					}
					if err := v.Set(p.Key, val); err != nil {
						t.Errorf("printed bound %s=%s refused: %v", p.Key, val, err)
						continue
					}
					c, err := v.Decode()
					if err != nil {
						t.Errorf("printed bound %s=%s does not decode: %v", p.Key, val, err)
						continue
					}
					f, _ := c.Field(p.Key)
					checkField(t, &p, val, f)
				}
				below, above := beyond(t, &p, lo, hi)
				for _, val := range []string{below, above} {
					if val == "" {
						continue
					}
					v := sc.Values()
					before := v.Get(p.Key)
					err := v.Set(p.Key, val)
					want := p.Key + "=" + val + " is out of range (allowed: " + p.Allowed() + ")"
					if err == nil || err.Error() != want {
						t.Errorf("%s=%s just beyond the printed range: error %v, want %q", p.Key, val, err, want)
					}
					if got := v.Get(p.Key); got != before {
						t.Errorf("%s=%s refused but the value changed to %s", p.Key, val, got)
					}
				}
			}
		})
	}
}

// checkField checks that val, a printed bound of p, decoded into dst, p's
// Config field, exactly.
func checkField(t *testing.T, p *params.Param, val string, dst any) {
	t.Helper()
	var got, want string
	switch d := dst.(type) {
	case *int:
		got, want = strconv.Itoa(*d), val
	case *int32:
		got, want = strconv.FormatInt(int64(*d), 10), val
	case *int64:
		got, want = strconv.FormatInt(*d, 10), val
	case *float64:
		got, want = strconv.FormatFloat(*d, 'g', -1, 64), val
	case *time.Duration:
		got = strconv.FormatInt(int64(*d), 10)
		if p.Kind == params.Duration {
			dv, _ := time.ParseDuration(val)
			want = strconv.FormatInt(int64(dv), 10)
		} else { // an Int in ms
			n, _ := strconv.ParseInt(val, 10, 64)
			want = strconv.FormatInt(n*int64(time.Millisecond), 10)
		}
	default:
		t.Errorf("%s: field of type %T not checked", p.Key, dst)
		return
	}
	if got != want {
		t.Errorf("%s=%s decodes to %s, want %s", p.Key, val, got, want)
	}
}

// TestIssue18Ranges pins the two ranges issue 18 found wrong: a value
// above coordinator.next.pid's maximum was accepted (compared as a
// float64), and producer.id.expiration.ms's printed maximum was refused.
func TestIssue18Ranges(t *testing.T) {
	sc, _ := Lookup("ackloss")
	for _, c := range []struct {
		key, val string
		ok       bool
	}{
		{"coordinator.next.pid", "4611686018427387904", true},
		{"coordinator.next.pid", "4611686018427388100", false},
		{"coordinator.next.pid", "4611686018427387905", false},
		{"producer.id.expiration.ms", "9223372036854", true},
		{"producer.id.expiration.ms", "9223372036855", false},
		{"retries", "2147483648", false},
		{"retries", "9223372036854775808", false}, // beyond int64 too
		{"net.latency.base", "1h0m0.000000001s", false},
	} {
		err := sc.Values().Set(c.key, c.val)
		if (err == nil) != c.ok {
			t.Errorf("%s=%s: error %v, want accepted=%v", c.key, c.val, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "is out of range (allowed: ") {
			t.Errorf("%s=%s: %v, want an out-of-range error", c.key, c.val, err)
		}
	}
	p := sc.Values().Param("producer.id.expiration.ms")
	if got := p.Allowed(); got != "1..9223372036854" {
		t.Errorf("producer.id.expiration.ms prints %s", got)
	}
}

// TestSequenceBitsRule: with idempotence the sequence space must exceed
// (broker.window + max.in.flight.requests.per.connection) * batch.size,
// and the error says which widths are allowed; without idempotence the
// width does not matter.
func TestSequenceBitsRule(t *testing.T) {
	sc, _ := Lookup("ackloss") // batch.size=1, broker.window=5, max in flight 5: 10 sequences needed
	for _, c := range []struct {
		sets []params.KV
		want string // error substring; "" for none
	}{
		{kv("sequence.bits", "4"), ""},
		{kv("sequence.bits", "3"), "sequence.bits=3 gives 8 sequence numbers, not more than (broker.window + max.in.flight.requests.per.connection) * batch.size = (5 + 5) * 1 = 10"},
		{kv("sequence.bits", "2"), "(allowed with these values: sequence.bits 4..31)"},
		{kv("sequence.bits", "2", "enable.idempotence", "false"), ""},
		{kv("sequence.bits", "4", "batch.size", "2"), "sequence.bits 5..31"},
		{kv("sequence.bits", "4", "broker.window", "1", "max.in.flight.requests.per.connection", "1"), ""},
		{kv("batch.size", "100000", "broker.window", "1000", "max.in.flight.requests.per.connection", "5"), ""}, // 31 bits hold every window
	} {
		// A width outside Kafka's design runs, with a configuration note
		// that says so.
		res, err := Resolve(Spec{Scenario: sc, Sets: c.sets})
		if err != nil {
			t.Errorf("%v: %v", c.sets, err)
			continue
		}
		note := ""
		for _, n := range res.Notes {
			if strings.Contains(n, "outside Kafka's design") {
				note = n
			}
		}
		switch {
		case c.want == "" && note != "":
			t.Errorf("%v: unexpected note %q", c.sets, note)
		case c.want != "" && (!strings.Contains(note, c.want) || strings.Contains(note, "\n")):
			t.Errorf("%v: note %q, want one line with %q", c.sets, note, c.want)
		}
	}
	// The widest window, in-flight count and batch size fit in 31 bits.
	if need := (int64(1000) + 100) * 100_000; need >= 1<<31 {
		t.Errorf("31 bits do not hold %d sequences", need)
	}
	// The catalogue's own defaults obey the rule (wrap narrows the width).
	for _, s := range All() {
		res, err := Resolve(Spec{Scenario: s})
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		for _, n := range res.Notes {
			if strings.Contains(n, "outside Kafka's design") {
				t.Errorf("%s: %s", s.Name, n)
			}
		}
	}
}
