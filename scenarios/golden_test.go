package scenarios

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenSeed is the seed whose traces are recorded.
const goldenSeed = 42

// TestGoldenTraces compares one full trace per scenario and mode with the
// recorded one in testdata/golden. A diff means behaviour changed: read it,
// and if the change is intended re-record with
//
//	go test ./scenarios -run TestGoldenTraces -update
func TestGoldenTraces(t *testing.T) {
	for _, sc := range All() {
		for _, on := range []bool{false, true} {
			mode := "on"
			if !on {
				mode = "off"
			}
			name := sc.Name + "-" + mode
			t.Run(name, func(t *testing.T) {
				r := mustRun(t, Spec{Scenario: sc, Seed: goldenSeed, Sets: idem(on), KeepTrace: true})
				var b strings.Builder
				b.WriteString("# " + r.Reproduce + " -trace\n")
				b.WriteString("# trace-hash " + r.TraceHash + "\n")
				for _, v := range r.Violations {
					b.WriteString("# violation " + v.Invariant + ": " + v.Detail + "\n")
				}
				if r.ViolationsCut > 0 {
					b.WriteString("# violations_cut " + strconv.FormatInt(r.ViolationsCut, 10) + "\n")
				}
				for _, l := range r.Trace {
					b.WriteString(l + "\n")
				}
				got := b.String()
				path := filepath.Join("testdata", "golden", name+".trace")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (record it with -update)", err)
				}
				if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); d != "" {
					t.Errorf("trace of %s seed %d changed (-recorded +now); re-record with -update if intended:\n%s", name, goldenSeed, d)
				}
			})
		}
	}
}
