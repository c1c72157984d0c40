package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/world"
)

// TestTraceHashWithoutFormatting: a run that formats its trace (-trace,
// kept lines) and one that only hashes give the same tagged hash, for
// every catalogue scenario in both modes.
func TestTraceHashWithoutFormatting(t *testing.T) {
	for _, sc := range All() {
		for _, on := range []bool{false, true} {
			spec := Spec{Scenario: sc, Seed: 3, Sets: idem(on)}
			plain, err := Run(spec)
			if err != nil {
				t.Fatal(err)
			}
			spec.KeepTrace = true
			kept, err := Run(spec)
			if err != nil {
				t.Fatal(err)
			}
			if plain.TraceHash != kept.TraceHash {
				t.Errorf("%s idempotence=%v: hash %s hashing only, %s formatting", sc.Name, on, plain.TraceHash, kept.TraceHash)
			}
			if !strings.HasPrefix(plain.TraceHash, world.TraceHashScheme+":") {
				t.Errorf("%s: hash %q has no scheme tag", sc.Name, plain.TraceHash)
			}
			if len(kept.Trace) == 0 || plain.Trace != nil {
				t.Errorf("%s: %d lines kept, %d lines without KeepTrace", sc.Name, len(kept.Trace), len(plain.Trace))
			}
		}
	}
}
