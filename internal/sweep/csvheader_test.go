package sweep

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// TestRunsCSVHeader pins runs.csv's header (testdata/runs_csv_header.txt):
// the key columns, then the -json field names in the -json order, then
// the flat columns (csvflat.go). A
// change is deliberate: regenerate with -update and say so in
// CHANGELOG.md. (On main the header had Counts.sent, Counts.acked, ...)
func TestRunsCSVHeader(t *testing.T) {
	var b strings.Builder
	sc, err := scenarios.Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Scenario: sc, Base: 1, Runs: 1, Parallel: 1, CSV: &b}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	header := strings.SplitN(b.String(), "\n", 2)[0] + "\n"
	const golden = "testdata/runs_csv_header.txt"
	if *update {
		os.WriteFile(golden, []byte(header), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if header != string(want) {
		t.Errorf("runs.csv header changed (update %s with -update and CHANGELOG.md):\n got %s\nwant %s", golden, header, want)
	}
	// Every result column is a -json key, in the -json order.
	res, err := scenarios.Run(scenarios.Spec{Scenario: c.Scenario, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(res)
	dec := json.NewDecoder(strings.NewReader(string(js)))
	var keys []string
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	cols := strings.Split(strings.TrimSpace(header), ",")[3:]
	if len(cols) < len(flatColumns) || !slices.Equal(cols[len(cols)-len(flatColumns):], flatColumns) {
		t.Fatalf("the header does not end with the flat columns %v", flatColumns)
	}
	cols = cols[:len(cols)-len(flatColumns)]
	i := 0
	for _, k := range keys {
		if csvSkip[k] {
			continue
		}
		for i < len(cols) && strings.HasPrefix(cols[i], k+".") {
			i++
		}
		if i < len(cols) && cols[i] == k {
			i++
			continue
		}
		if i > 0 && strings.HasPrefix(cols[i-1], k+".") {
			continue
		}
		t.Errorf("-json key %q is not the next column (at %q)", k, cols[min(i, len(cols)-1)])
	}
	if i != len(cols) {
		t.Errorf("columns %v are not -json keys", cols[i:])
	}
}
