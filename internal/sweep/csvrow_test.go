package sweep

import (
	"io"
	"reflect"
	"testing"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// BenchmarkRunsCSV is the cost of one runs.csv row (formatted without
// reflection, as a worker does, and written, buffered, as the writer
// does); compare it with BenchmarkSweep10k's time per run.
func BenchmarkRunsCSV(b *testing.B) {
	sc := lookupAckloss(b)
	var rs []*scenarios.Result
	for seed := uint64(1); seed <= 64; seed++ {
		for _, on := range []string{"false", "true"} {
			r, err := scenarios.Run(scenarios.Spec{Scenario: sc, Seed: seed, Sets: []params.KV{{Key: "enable.idempotence", Value: on}}})
			if err != nil {
				b.Fatal(err)
			}
			rs = append(rs, r)
		}
	}
	w := newCSVWriter(io.Discard, nil)
	var line, scratch []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if line, err = w.rows.format(line[:0], &scratch, 0, rs[i%len(rs)]); err != nil {
			b.Fatal(err)
		}
		if err := w.write(line); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := w.flush(); err != nil {
		b.Fatal(err)
	}
}

// TestRunsCSVFastRows: the rows written without reflection are, byte for
// byte, what encoding/csv writes of the reflective cells (encoding/json
// for lists and maps), for real runs (violations, errors, notes, bugs) and
// for strings that need JSON escaping or CSV quoting; and the fast path is
// on for the Result as it is.
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
				spec := scenarios.Spec{Scenario: sc, Seed: seed, Sets: []params.KV{{Key: "enable.idempotence", Value: on}}}
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
	odd2 := *rs[0]
	odd2.Stop = " lead"
	odd2.Violations = []check.Violation{{Invariant: "INV-<DUP>", Detail: "a \"b\", c\nd & \u2028\xff", AtNs: -3}, {}}
	odd2.Errors = map[string]int64{}
	rs = append(rs, &odd, &odd2)
	var violations bool
	for _, r := range rs {
		violations = violations || len(r.Violations) > 0
		fast, _ := appendFastRow([]byte("k"), nil, r)
		rv := reflect.ValueOf(r).Elem()
		rec := []string{"k"}
		for _, c := range cols {
			want, err := cell(rv.FieldByIndex(c.index))
			if err != nil {
				t.Fatal(err)
			}
			rec = append(rec, want)
		}
		if want := csvReference(t, rec); string(append(fast, '\n')) != string(want) {
			t.Errorf("%s seed %d: fast row\n%q\nencoding/csv of the reflective cells\n%q", r.Scenario, r.Seed, fast, want)
		}
	}
	if !violations {
		t.Fatalf("no run with violations: the test covers less than it says")
	}
}
