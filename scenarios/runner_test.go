package scenarios

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

// TestRunnerMatchesRun: one Runner running the whole catalogue in an
// interleaved order (each run in the memory of a different scenario's
// run, with and without a kept trace) gives every result a fresh Run
// gives, and results handed out earlier are unchanged by the later runs
// (nothing a Result holds is reused).
func TestRunnerMatchesRun(t *testing.T) {
	type job struct {
		spec Spec
		name string
	}
	var jobs []job
	all := All()
	for seed := uint64(1); seed <= 2; seed++ {
		for i := range all {
			// Alternate the ends of the catalogue, so that neighbours
			// differ in shape (brokers, applications, replication).
			sc := all[i/2]
			if i%2 == 1 {
				sc = all[len(all)-1-i/2]
			}
			for _, on := range []bool{false, true} {
				keep := (i+int(seed))%3 == 0
				jobs = append(jobs, job{Spec{Scenario: sc, Seed: seed, Sets: idem(on), KeepTrace: keep},
					fmt.Sprintf("%s seed %d idempotence=%v keep=%v", sc.Name, seed, on, keep)})
			}
		}
	}
	var r Runner
	got := make([]*Result, len(jobs))
	for i, j := range jobs {
		res, err := r.Run(j.spec)
		if err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
		got[i] = res
	}
	for i, j := range jobs {
		if r := j.spec.Reproduce(); got[i].Reproduce != r {
			t.Fatalf("%s: result's reproduce command %q, the spec's %q", j.name, got[i].Reproduce, r)
		}
		want := mustRun(t, j.spec)
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("%s: the runner's result differs from a fresh run's:\nrunner %+v\nfresh  %+v", j.name, got[i], want)
		}
	}
}

// TestRunnerAfterError: a spec that fails to build leaves the runner
// usable, and its next run is a fresh run's.
func TestRunnerAfterError(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	var r Runner
	if _, err := r.Run(Spec{Scenario: sc, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(Spec{Scenario: sc, Seed: 1, Sets: []params.KV{{Key: "brokers", Value: "0"}}}); err == nil {
		t.Fatal("brokers=0 ran")
	}
	got, err := r.Run(Spec{Scenario: sc, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := mustRun(t, Spec{Scenario: sc, Seed: 2}); !reflect.DeepEqual(got, want) {
		t.Fatalf("after an error the runner's result differs:\n%+v\n%+v", got, want)
	}
}

// TestRunnerRecycle: a runner whose every result is recycled once it was
// read writes each next result in the recycled one's memory, and each
// result, read before it is recycled, is a fresh run's (its errors map,
// bugs and latencies too), across the catalogue with and without bugs.
func TestRunnerRecycle(t *testing.T) {
	var r Runner
	var prev *Result
	reused := 0
	for i, sc := range All() {
		for _, on := range []bool{false, true} {
			spec := Spec{Scenario: sc, Seed: uint64(3 + i%2), Sets: idem(on)}
			if i%4 == 1 {
				spec.Bugs = sc.Bugs // a run with the scenario's bugs switched on, when it has any
			}
			got, err := r.Run(spec)
			if err != nil {
				t.Fatalf("%s: %v", sc.Name, err)
			}
			if got == prev {
				reused++
			}
			if want := mustRun(t, spec); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s idempotence=%v: the recycling runner's result differs from a fresh run's:\nrunner %+v\nfresh  %+v", sc.Name, on, got, want)
			}
			r.Recycle(got)
			prev = got
		}
	}
	if reused == 0 {
		t.Fatal("no result was written in a recycled one's memory")
	}
}
