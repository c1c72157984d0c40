package sweep

import (
	"io"
	"reflect"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// BenchmarkRunsCSV is the cost of one runs.csv row (buffered, without
// reflection); compare it with BenchmarkSweep10k's time per run.
func BenchmarkRunsCSV(b *testing.B) {
	sc := lookupAckloss(b)
	var rs []*scenarios.Result
	for seed := uint64(1); seed <= 64; seed++ {
		for _, on := range []string{"false", "true"} {
			r, err := scenarios.Run(scenarios.Spec{Scenario: sc, Seed: seed, Sets: []scenarios.KV{{Key: "enable.idempotence", Value: on}}})
			if err != nil {
				b.Fatal(err)
			}
			rs = append(rs, r)
		}
	}
	w := newCSVWriter(io.Discard, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.row(0, rs[i%len(rs)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := w.flush(); err != nil {
		b.Fatal(err)
	}
}

// TestRunsCSVFastRows: the rows written without reflection are the rows
// the reflective cells write, for real runs (violations, errors, notes,
// bugs) and for strings that need JSON escaping; and the fast path is on
// for the Result as it is.
func TestRunsCSVFastRows(t *testing.T) {
	cols := resultColumns()
	if !fastMatches(cols) {
		var names []string
		for _, c := range cols {
			names = append(names, c.name)
		}
		t.Fatalf("runs.csv columns %v, appendFast writes %v: add the new column to appendFast and fastColumns", names, fastColumns)
	}
	var rs []*scenarios.Result
	for _, name := range []string{"ackloss", "zombie", "restart"} {
		sc, _ := scenarios.Lookup(name)
		for seed := uint64(1); seed <= 8; seed++ {
			for _, on := range []string{"false", "true"} {
				spec := scenarios.Spec{Scenario: sc, Seed: seed, Sets: []scenarios.KV{{Key: "enable.idempotence", Value: on}}}
				if seed == 3 {
					spec.Bugs = []string{"Z16"}
				}
				r, err := scenarios.Run(spec)
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
			}
		}
	}
	odd := *rs[0]
	odd.Bugs = []string{"<a&b>", "q\"uote\\", "ctl\x01\x1f\n\r\t\b\f", "bad\xffutf8", "sep\u2028\u2029", "é ü ✓"}
	odd.ConfigNotes = nil
	odd.Errors = map[string]int64{"Z<": 1, "a&b": -2, "": 0}
	odd.Violations = nil
	odd.Reproduce = "go run ./cmd/simulate -set 'a=b,c'"
	rs = append(rs, &odd)
	var violations bool
	for _, r := range rs {
		violations = violations || len(r.Violations) > 0
		fast, _, err := appendFast(nil, nil, r)
		if err != nil {
			t.Fatal(err)
		}
		rv := reflect.ValueOf(r).Elem()
		for k, c := range cols {
			want, err := cell(rv.FieldByIndex(c.index))
			if err != nil {
				t.Fatal(err)
			}
			if fast[k] != want {
				t.Errorf("%s seed %d column %s: fast %q, reflective %q", r.Scenario, r.Seed, c.name, fast[k], want)
			}
		}
	}
	if !violations {
		t.Fatalf("no run with violations: the test covers less than it says")
	}
}
