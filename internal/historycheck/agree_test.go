package historycheck

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/idemsim/idemsim/internal/history"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

var long = flag.Bool("long", false, "run the agreement test over 500 seeds per scenario and mode (default 25)")

// seeds is how many seeds the agreement test runs per scenario and mode.
func seeds() uint64 {
	switch {
	case *long:
		return 500
	case testing.Short():
		return 10
	}
	return 25
}

// anomaly pairs one kind this checker reports with the invariant that
// must agree with it, run by run.
type anomaly struct {
	kind string
	// found reports whether the history checker found the kind.
	found func(*Report) bool
	// fired reports whether the invariants found it; nil while no
	// invariant judges the kind (the checker must then find none).
	fired func(*scenarios.Result) bool
}

// anomalies is the mapping docs/history.md documents.
var anomalies = []anomaly{
	{"duplicates", func(r *Report) bool { return len(r.Duplicates) > 0 }, firedInv("INV-DUP")},
	{"lost writes", func(r *Report) bool { return len(r.LostWrites) > 0 }, firedInv("INV-LOSS")},
	// INV-DEDUP has two halves: a batch answered as a duplicate of a
	// different stored batch (seen at the broker only), and an
	// acknowledged offset that does not hold the acknowledged record,
	// which is in the log elsewhere (seen by the client). The second is
	// the unseen acknowledged write; its violations read "X acknowledged
	// at pN offset M, which holds other data". A record missing from the
	// log altogether is a lost write only, on both sides.
	{"unseen acknowledged writes", func(r *Report) bool { return len(r.Unseen) > 0 }, func(res *scenarios.Result) bool {
		for _, v := range res.Violations {
			if v.Invariant == "INV-DEDUP" && strings.Contains(v.Detail, " acknowledged at p") {
				return true
			}
		}
		return false
	}},
	// Aborted reads map to INV-TXN's aborted-read clause (its other
	// clauses, torn transactions, lost committed writes and stale
	// EndTxns, have no history-checker kind of their own).
	{"aborted reads", func(r *Report) bool { return len(r.AbortedReads) > 0 }, func(res *scenarios.Result) bool {
		for _, v := range res.Violations {
			if v.Invariant == "INV-TXN" && strings.HasPrefix(v.Detail, "aborted read:") {
				return true
			}
		}
		return false
	}},
}

func firedInv(name string) func(*scenarios.Result) bool {
	return func(res *scenarios.Result) bool {
		for _, v := range res.Violations {
			if v.Invariant == name {
				return true
			}
		}
		return false
	}
}

// agree runs spec with its history, checks the history with this package
// and compares the verdicts with the invariants'. It returns what
// disagreed ("" when nothing did) and the kinds the checker found.
func agree(spec scenarios.Spec) (string, []string, error) {
	rec := history.Record(&spec)
	res, err := scenarios.Run(spec)
	if err != nil {
		return "", nil, err
	}
	var buf bytes.Buffer
	if err := history.Write(&buf, rec.History(), history.JSONL); err != nil {
		return "", nil, err
	}
	ops, err := Read(&buf)
	if err != nil {
		return "", nil, err
	}
	rep, err := Check(ops)
	if err != nil {
		return "", nil, err
	}
	var bad, kinds []string
	for _, a := range anomalies {
		found, fired := a.found(rep), false
		if a.fired != nil {
			fired = a.fired(res)
		}
		if found {
			kinds = append(kinds, a.kind)
		}
		if found != fired {
			bad = append(bad, fmt.Sprintf("%s: history checker %v, invariants %v", a.kind, found, fired))
		}
	}
	// The counts agree too.
	if int64(rep.ExtraCopies) != res.Duplicates {
		bad = append(bad, fmt.Sprintf("extra copies: history checker %d, invariants %d", rep.ExtraCopies, res.Duplicates))
	}
	if int64(len(rep.LostWrites)) != res.LostAcked {
		bad = append(bad, fmt.Sprintf("lost writes: history checker %d, invariants %d", len(rep.LostWrites), res.LostAcked))
	}
	if len(bad) == 0 {
		return "", kinds, nil
	}
	return fmt.Sprintf("%s\n  report: %+v\n  violations: %v\n  reproduce: %s -history h.jsonl", strings.Join(bad, "\n  "), *rep, res.Violations, res.Reproduce), kinds, nil
}

// faultSets are the random faults and losses of the agreement test's
// third group: a generated fault plan of 6 actions (pauses, crashes,
// partitions, drops, drift), random request and response loss and random
// transient broker errors.
var faultSets = []params.KV{{Key: "fault.count", Value: "6"}, {Key: "net.request_loss", Value: "0.02"},
	{Key: "net.response_loss", Value: "0.05"}, {Key: "broker.transient_error", Value: "0.02"}}

// TestAgreesWithInvariants runs every catalogue scenario, idempotence off
// and on, and every -bug over 25 seeds (500 with -long, 10 with -short),
// and every scenario in both modes under random faults and losses over a
// fifth as many, and requires the history checker and the invariants to
// agree run by run on every anomaly kind. Unless -short, each kind that an
// invariant judges must show up somewhere, so that the agreement is not
// vacuous.
func TestAgreesWithInvariants(t *testing.T) {
	n := seeds()
	type job struct {
		name  string
		spec  scenarios.Spec
		seeds uint64
	}
	var jobs []job
	idem := func(on bool) []params.KV {
		return []params.KV{{Key: "enable.idempotence", Value: fmt.Sprint(on)}}
	}
	for _, sc := range scenarios.All() {
		for _, on := range []bool{false, true} {
			jobs = append(jobs, job{fmt.Sprintf("%s/idempotence=%v", sc.Name, on), scenarios.Spec{Scenario: sc, Sets: idem(on)}, n})
		}
	}
	for _, b := range params.Bugs() {
		sc, err := scenarios.Lookup(b.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{fmt.Sprintf("%s/bug=%s", sc.Name, b.ID), scenarios.Spec{Scenario: sc, Bugs: []string{b.ID}}, n})
	}
	for _, sc := range scenarios.All() {
		for _, on := range []bool{false, true} {
			jobs = append(jobs, job{fmt.Sprintf("%s/idempotence=%v/faults", sc.Name, on),
				scenarios.Spec{Scenario: sc, Sets: append(idem(on), faultSets...)}, max(n/5, 2)})
		}
	}
	var mu sync.Mutex
	seen := map[string]int{}
	t.Run("runs", func(t *testing.T) {
		for _, j := range jobs {
			t.Run(j.name, func(t *testing.T) {
				t.Parallel()
				for seed := uint64(1); seed <= j.seeds; seed++ {
					spec := j.spec
					spec.Seed = seed
					msg, kinds, err := agree(spec)
					if err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					if msg != "" {
						t.Errorf("seed %d: %s", seed, msg)
					}
					mu.Lock()
					for _, k := range kinds {
						seen[k]++
					}
					mu.Unlock()
				}
			})
		}
	})
	t.Logf("runs with each anomaly kind: %v", seen)
	if testing.Short() {
		return
	}
	for _, a := range anomalies {
		if a.fired != nil && seen[a.kind] == 0 {
			t.Errorf("no run showed %s: the agreement on it is vacuous", a.kind)
		}
	}
}
