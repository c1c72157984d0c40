package sweep

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios"
)

func TestAppendMs(t *testing.T) {
	for ns, want := range map[int64]string{0: "0", 1: "0.000001", 1_500_000: "1.5", 2_000_000: "2", 215_202_591: "215.202591",
		3_600_000_000_000: "3600000", 10_000: "0.01"} {
		if got := string(appendMs(nil, ns)); got != want || !isMs(got) {
			t.Errorf("appendMs(%d) = %q, want %q (isMs %v)", ns, got, want, isMs(got))
		}
	}
	for _, bad := range []string{"", "-1", "1.", ".5", "1.0000001", "1e3", "1,5"} {
		if isMs(bad) {
			t.Errorf("isMs(%q) = true", bad)
		}
	}
}

func TestPlanColumns(t *testing.T) {
	for _, c := range []struct{ plan, want string }{
		{"", ",0,,,,,,,,"},
		{"0s drop response 4 p1>b1\n1.038006479s crash b1\nend 2m4s\n", ",2,0,drop response 4 p1>b1,1038.006479,crash b1,,,,"},
		{"1s crash b1\n2s restart b1\n3s crash b1\n4s restart b1\n5s crash b1\n", ",5,1000,crash b1,2000,restart b1,3000,crash b1,4000,restart b1"},
		{"1.634863165s partition b1 | b2 b3\n", ",1,1634.863165,partition b1 | b2 b3,,,,,,"},
	} {
		if got := string(appendPlanColumns(nil, c.plan)); got != c.want {
			t.Errorf("plan %q: got %q, want %q", c.plan, got, c.want)
		}
	}
}

// TestRunsCSVFlatColumns: in a sweep of unclean over fault.at.ms, each
// row's fault1_at_ms is the partition at fault.at.ms plus its jitter (up
// to 1s), fault2 the crash 2·replica.lag.time.max.ms (4s) plus 1s to 3s
// later, and the flat columns say what the row's JSON columns say.
func TestRunsCSVFlatColumns(t *testing.T) {
	sc, err := scenarios.Lookup("unclean")
	if err != nil {
		t.Fatal(err)
	}
	ax, err := ParseAxis(sc, "fault.at.ms=500,1500")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	c := Config{Scenario: sc, Base: 1, Runs: 4, Parallel: 2, CSV: &b, Axes: []Axis{ax}, Modes: []bool{false, true}}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	h := recs[0]
	col := func(rec []string, name string) string {
		i := slices.Index(h, name)
		if i < 0 {
			t.Fatalf("no column %s", name)
		}
		return rec[i]
	}
	failed, erred := 0, 0
	for _, rec := range recs[1:] {
		at, _ := strconv.Atoi(col(rec, "fault.at.ms"))
		f1, err := strconv.ParseFloat(col(rec, "fault1_at_ms"), 64)
		if err != nil || f1 < float64(at) || f1 >= float64(at+1000) || col(rec, "fault1") != "partition b1 | b2 b3" || col(rec, "fault2") != "crash b1" {
			t.Errorf("fault.at.ms=%d: fault1 %q at %q, fault2 %q", at, col(rec, "fault1"), col(rec, "fault1_at_ms"), col(rec, "fault2"))
		}
		if f2, _ := strconv.ParseFloat(col(rec, "fault2_at_ms"), 64); f2-f1 < 9000 || f2-f1 >= 11000 {
			t.Errorf("the crash at %v is not 9s to 11s after the partition at %v", f2, f1)
		}
		if col(rec, "faults") != "4" || col(rec, "fault4") != "restart b1" {
			t.Errorf("faults %q, fault4 %q", col(rec, "faults"), col(rec, "fault4"))
		}
		var vs []check.Violation
		if err := json.Unmarshal([]byte(col(rec, "violations")), &vs); err != nil {
			t.Fatal(err)
		}
		cut, _ := strconv.Atoi(col(rec, "violations_cut"))
		if got := col(rec, "violations_count"); got != strconv.Itoa(len(vs)+cut) {
			t.Errorf("violations_count %s, the JSON has %d and %d cut", got, len(vs), cut)
		}
		var first check.Violation
		var invs []string
		for i, v := range vs {
			if i == 0 || v.AtNs < first.AtNs {
				first = v
			}
			if !slices.Contains(invs, v.Invariant) {
				invs = append(invs, v.Invariant)
			}
		}
		wantAt := ""
		if len(vs) > 0 {
			failed++
			wantAt = strconv.FormatFloat(float64(first.AtNs)/float64(time.Millisecond), 'f', -1, 64)
		}
		if col(rec, "first_violation") != first.Invariant || col(rec, "first_violation_at_ms") != wantAt {
			t.Errorf("first_violation %q at %q, want %q at %q", col(rec, "first_violation"), col(rec, "first_violation_at_ms"), first.Invariant, wantAt)
		}
		got := strings.Fields(col(rec, "violated"))
		if slices.Sort(invs); !slices.Equal(slices.Sorted(slices.Values(got)), invs) {
			t.Errorf("violated %q, the JSON has %v", col(rec, "violated"), invs)
		}
		for i := 1; i < len(got); i++ {
			if slices.Index(check.Invariants(), got[i-1]) >= slices.Index(check.Invariants(), got[i]) {
				t.Errorf("violated %q is not in report order", col(rec, "violated"))
			}
		}
		var errs map[string]int64
		if err := json.Unmarshal([]byte(col(rec, "errors")), &errs); err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, n := range errs {
			sum += n
		}
		if sum > 0 {
			erred++
		}
		if col(rec, "errors_total") != strconv.FormatInt(sum, 10) {
			t.Errorf("errors_total %s, the JSON sums to %d", col(rec, "errors_total"), sum)
		}
	}
	if failed == 0 || erred == 0 {
		t.Errorf("%d runs violated an invariant, %d got errors: the flat columns went untested", failed, erred)
	}
}

// TestMergeChecksFlatColumns: merge refuses a shard row whose flat count
// column is not a count or whose time column is not a time in ms (or
// empty), naming the column, and merges the rows a sweep writes.
func TestMergeChecksFlatColumns(t *testing.T) {
	sc, err := scenarios.Lookup("unclean")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if _, err := Run(context.Background(), Config{Scenario: sc, Base: 1, Runs: 2, Parallel: 1, CSV: &b, Modes: []bool{false}}); err != nil {
		t.Fatal(err)
	}
	st := &State{Base: 1, Runs: 2, Modes: []bool{false}, Acc: make([][]*Acc, 1)}
	check := newRowCheck(st)
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	h := recs[0]
	for _, rec := range recs[1:] {
		k, err := keyOf(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := check(h, rec, k); err != nil {
			t.Errorf("a sweep's row is refused: %v", err)
		}
		for _, c := range []struct{ col, value, want string }{
			{"violations_count", "-1", `violations_count "-1" is not a non-negative integer`},
			{"errors_total", "", `errors_total "" is not a non-negative integer`},
			{"faults", "x", `faults "x" is not a non-negative integer`},
			{"fault1_at_ms", "soon", `fault1_at_ms "soon" is not a time in ms`},
			{"fault4_at_ms", "-3", `fault4_at_ms "-3" is not a time in ms`},
			{"first_violation_at_ms", "1.2.3", `first_violation_at_ms "1.2.3" is not a time in ms`},
		} {
			bad := slices.Clone(rec)
			bad[slices.Index(h, c.col)] = c.value
			if err := check(h, bad, k); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s=%q: %v, want %q", c.col, c.value, err, c.want)
			}
		}
	}
}
