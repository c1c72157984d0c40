package scenarios

import (
	"encoding/json"
	"math/rand/v2"

	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios/world"
)

// saveAt is a probe that counts the ChoiceTime points and saves the
// world's state at the one numbered at (-1: none).
type saveAt struct {
	t     testing.TB
	ss    *world.Snapshots
	n, at int
	saved *world.Saved
	took  time.Duration
}

func (p *saveAt) Choice(cp *world.ChoicePoint) {
	if cp.Kind != world.ChoiceTime {
		return
	}
	if p.n == p.at {
		start := time.Now()
		sv, err := cp.Save(p.ss)
		p.took = time.Since(start)
		if err == world.ErrSettling {
			p.n++
			return
		}
		if err != nil {
			p.t.Fatal(err)
		}
		p.saved = sv
	}
	p.n++
}

// resultBytes is a result as the comparison sees it: its JSON without the
// reproduce command (the caller's), and its latencies.
func resultBytes(r *Result) string {
	c := *r
	c.Reproduce = ""
	b, _ := json.Marshal(&c)
	l, _ := json.Marshal(c.Latencies)
	return string(b) + string(l)
}

// TestSnapshotResumeMatchesReplay: for random seeds of every catalogue
// scenario (the seed's own fault plan), a run resumed from its state saved
// at a random time choice point ends exactly as the run from the start:
// the trace hash, the verdicts, the counters, the latencies. Saving does
// not change the run it is taken from, and a saved state resumes alike
// twice. -long runs thousands.
func TestSnapshotResumeMatchesReplay(t *testing.T) {
	seeds := 4
	if *long {
		seeds = 100
	}
	rng := rand.New(rand.NewPCG(36, 1))
	ss := world.NewSnapshots()
	var saves, bytes, regions, settling int
	var saveTime, resumeTime time.Duration
	for _, sc := range All() {
		for seed := range uint64(seeds) {
			for _, on := range []bool{true, false} {
				spec := Spec{Scenario: sc, Seed: seed*7919 + 3, Sets: idem(on)}
				count := &saveAt{t: t, at: -1}
				spec.Probe = count
				ref := mustRun(t, spec)
				if count.n == 0 {
					continue
				}
				for range 2 {
					p := &saveAt{t: t, ss: ss, at: rng.IntN(count.n)}
					spec.Probe = p
					src := mustRun(t, spec)
					if resultBytes(src) != resultBytes(ref) {
						t.Fatalf("%s seed %d: saving at time point %d changed the run", sc.Name, spec.Seed, p.at)
					}
					if p.saved == nil {
						settling++
						continue
					}
					if p.saved.Stats.Funcs != 0 {
						// A function value may close over the source World:
						// the copy would call back into it.
						t.Fatalf("%s seed %d: the saved World holds %d function values", sc.Name, spec.Seed, p.saved.Stats.Funcs)
					}
					for range 2 {
						start := time.Now()
						r, err := p.saved.Resume(ss, &saveAt{t: t, at: -1})
						resumeTime += time.Since(start)
						if err != nil {
							t.Fatal(err)
						}
						if a, b := resultBytes(r), resultBytes(ref); a != b {
							t.Fatalf("%s seed %d idempotence=%v: resumed at time point %d of %d differs from the replay\nresumed %s\nreplay  %s", sc.Name, spec.Seed, on, p.at, count.n, a, b)
						}
					}
					saves++
					saveTime += p.took
					bytes += p.saved.Stats.Bytes
					regions += p.saved.Stats.Regions
				}
			}
		}
	}
	if saves > 0 {
		t.Logf("%d points in replication's settling not saved", settling)
		t.Logf("%d saves: %.0f µs and %d bytes (%d allocations) per save; resume (copy and run the rest) %.0f µs", saves,
			float64(saveTime.Microseconds())/float64(saves), bytes/saves, regions/saves, float64(resumeTime.Microseconds())/float64(2*saves))
	}
}

// BenchmarkSnapshot measures, at a time point half way through a run of
// each scenario named, beside the whole run (run): a run with a save
// there (save), a resume (a copy of the saved state and the rest of the
// run) and a restore (the copy alone, with the saved state's bytes).
func BenchmarkSnapshot(b *testing.B) {
	for _, name := range []string{"ackloss", "zombie", "coordfailover", "failover"} {
		sc, err := Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		spec := Spec{Scenario: sc, Seed: 1}
		count := &saveAt{t: b, at: -1}
		spec.Probe = count
		mustRun(b, spec)
		n := count.n // the run benchmark's runs count on
		b.Run(name+"/run", func(b *testing.B) {
			for range b.N {
				mustRun(b, spec)
			}
		})
		ss := world.NewSnapshots()
		p := &saveAt{t: b, ss: ss}
		spec.Probe = p
		for _, k := range []int{2, 3, 4, 8, 16} {
			p.n, p.at = 0, n/k
			if mustRun(b, spec); p.saved != nil {
				break
			}
		}
		if p.saved == nil {
			b.Logf("%s: %d points, none saved", name, n)
			continue
		}
		b.Run(name+"/save", func(b *testing.B) {
			for range b.N {
				p.n, p.saved = 0, nil
				mustRun(b, spec)
			}
		})
		b.Run(name+"/resume", func(b *testing.B) {
			for range b.N {
				if _, err := p.saved.Resume(ss, &saveAt{t: b, at: -1}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/restore", func(b *testing.B) {
			for range b.N {
				if _, err := p.saved.Restore(ss); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.saved.Stats.Bytes), "bytes/state")
		})
		b.Logf("%s: save at time point %d of %d: %+v", name, p.at, n, p.saved.Stats)
	}
}
