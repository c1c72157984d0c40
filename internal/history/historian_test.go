package history

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// finalRead returns the final poll of h at level f, by partition.
func finalRead(t *testing.T, h *History, f Final) map[int32][]Read {
	t.Helper()
	for _, op := range h.Ops {
		if op.Final == f && op.Type == OpOK {
			out := map[int32][]Read{}
			for _, kr := range op.Value[0].Reads {
				out[kr.Key] = kr.Records
			}
			return out
		}
	}
	t.Fatalf("no %s final poll", f)
	return nil
}

// TestHistoryAckloss: with idempotence off, seed 4 of ackloss duplicates
// a0:8 (README); the history shows its value, 8, at two offsets of the
// final read, and the send's ok carries the offset the producer was told.
func TestHistoryAckloss(t *testing.T) {
	sc, _ := scenarios.Lookup("ackloss")
	_, rh := runHistory(t, scenarios.Spec{Scenario: sc, Seed: 4, Sets: idem(false)})
	var offsets []int64
	for _, rd := range finalRead(t, rh, FinalReadCommitted)[0] {
		if rd.Value == 8 {
			offsets = append(offsets, rd.Offset)
		}
	}
	if !slices.Equal(offsets, []int64{8, 13}) {
		t.Errorf("value 8 at offsets %v of the final read, want [8 13]", offsets)
	}
	var acked []string
	for _, op := range rh.Ops {
		if op.F == OpSend && op.Type == OpOK && op.Value[0].Value == 8 {
			acked = append(acked, op.Value[0].String())
		}
	}
	if !slices.Equal(acked, []string{"send 0 [13 8]"}) {
		t.Errorf("the send of 8 completed %v, want [send 0 [13 8]]", acked)
	}
}

// TestHistoryShape checks every catalogue scenario's history, on and off
// and over a few seeds, against the rules a Jepsen history follows: dense
// indexes, times that never go back, per process an invocation then its
// completion with the same :f, no process used again after info, and the
// two final polls last.
func TestHistoryShape(t *testing.T) {
	for _, sc := range scenarios.All() {
		for _, on := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/%v", sc.Name, on), func(t *testing.T) {
				t.Parallel()
				for seed := uint64(1); seed <= 10; seed++ {
					r, rh := runHistory(t, scenarios.Spec{Scenario: sc, Seed: seed, Sets: idem(on)})
					if err := checkShape(rh); err != nil {
						t.Fatalf("seed %d: %v\nreproduce: %s -history h.jsonl", seed, err, r.Reproduce)
					}
				}
			})
		}
	}
}

func checkShape(h *History) error {
	running := map[int]*HistoryOp{}
	retired := map[int]bool{}
	var last = h.Ops[0].Time
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Index != i {
			return fmt.Errorf("op %d has index %d", i, op.Index)
		}
		if op.Time < last {
			return fmt.Errorf("op %d: time goes back", i)
		}
		last = op.Time
		if retired[op.Process] {
			return fmt.Errorf("op %d: process %d used after an info", i, op.Process)
		}
		inv := running[op.Process]
		if op.Type == OpInvoke {
			if inv != nil {
				return fmt.Errorf("op %d: process %d invokes while op %d runs", i, op.Process, inv.Index)
			}
			running[op.Process] = op
			continue
		}
		if inv == nil || inv.F != op.F || len(inv.Value) != len(op.Value) {
			return fmt.Errorf("op %d: a completion without its invocation", i)
		}
		for j := range op.Value {
			if op.Value[j].Value != inv.Value[j].Value || op.Value[j].Key != inv.Value[j].Key {
				return fmt.Errorf("op %d: completes other sends than op %d invoked", i, inv.Index)
			}
			if op.Value[j].Acked != (op.Type == OpOK && op.F != OpPoll) {
				return fmt.Errorf("op %d: %s has an acknowledged form only when ok", i, op.Value[j])
			}
		}
		if (op.Error != "") != (op.Type == OpFail || op.Type == OpInfo) {
			return fmt.Errorf("op %d: type %s with error %q", i, op.Type, op.Error)
		}
		delete(running, op.Process)
		if op.Type == OpInfo {
			retired[op.Process] = true
		}
	}
	if len(running) > 0 {
		return fmt.Errorf("%d operations never complete", len(running))
	}
	n := len(h.Ops)
	if n < 4 || h.Ops[n-3].Final != FinalReadCommitted || h.Ops[n-1].Final != FinalReadUncommitted {
		return fmt.Errorf("the history does not end with the read_committed and read_uncommitted final polls")
	}
	return nil
}

// TestHistoryChangesNothing: asking for the history leaves the run's
// trace and verdicts as they were.
func TestHistoryChangesNothing(t *testing.T) {
	for _, sc := range scenarios.All() {
		for seed := uint64(1); seed <= 3; seed++ {
			a := mustRun(t, scenarios.Spec{Scenario: sc, Seed: seed})
			b, h := runHistory(t, scenarios.Spec{Scenario: sc, Seed: seed})
			if a.TraceHash != b.TraceHash || fmt.Sprint(a.Violations) != fmt.Sprint(b.Violations) || h == nil {
				t.Errorf("%s seed %d: the history changed the run", sc.Name, seed)
			}
		}
	}
}

// TestHistoryTransactions: txntimeout without its pause commits every
// transaction of 10 records: one txn operation each, ok, with the
// offsets of its sends, which the read_committed final poll holds.
func TestHistoryTransactions(t *testing.T) {
	sc, _ := scenarios.Lookup("txntimeout")
	_, rh := runHistory(t, scenarios.Spec{Scenario: sc, Seed: 42, Sets: []params.KV{{Key: "pause.ms", Value: "0"}}})
	rc := finalRead(t, rh, FinalReadCommitted)
	at := map[[2]int64]int64{}
	for k, rds := range rc {
		for _, rd := range rds {
			at[[2]int64{int64(k), rd.Offset}] = rd.Value
		}
	}
	oks := 0
	for _, op := range rh.Ops {
		if op.F == OpSend {
			t.Fatalf("op %d: a send outside a transaction", op.Index)
		}
		if op.F != OpTxn || op.Type == OpInvoke {
			continue
		}
		if op.Type != OpOK || len(op.Value) != 10 {
			t.Fatalf("op %d: %s txn of %d sends, want ok with 10", op.Index, op.Type, len(op.Value))
		}
		oks++
		for _, m := range op.Value {
			if v, ok := at[[2]int64{int64(m.Key), m.Offset}]; !ok || v != m.Value {
				t.Errorf("op %d: %s is not in the final read", op.Index, m)
			}
		}
	}
	if oks != 4 {
		t.Errorf("%d committed transactions, want 4", oks)
	}
}

func mustRun(t testing.TB, spec scenarios.Spec) *scenarios.Result {
	t.Helper()
	r, err := scenarios.Run(spec)
	if err != nil {
		t.Fatalf("Run(%s seed %d): %v", spec.Scenario.Name, spec.Seed, err)
	}
	return r
}

// runHistory runs spec with a history recorder and returns the result
// and the history.
func runHistory(t testing.TB, spec scenarios.Spec) (*scenarios.Result, *History) {
	t.Helper()
	rec := Record(&spec)
	r := mustRun(t, spec)
	return r, rec.History()
}

func idem(on bool) []params.KV {
	return []params.KV{{Key: "enable.idempotence", Value: strconv.FormatBool(on)}}
}

// TestWriteValuesUnique: every write of a history has a value of its own,
// as Jepsen's Kafka checker assumes, and names its logical record in
// "records". The zombie's replacement sends a0:30 again after the zombie's
// transaction holding it was fenced (seed 1), and epochx's restarted
// instances send again what their crashed ones left unresolved: each
// hand-over is a write with a new value, while the logical record stays
// 30. Each value is invoked by one operation, completed by at most one,
// and every value a final poll reads was written by some operation.
func TestWriteValuesUnique(t *testing.T) {
	resent := 0
	for _, c := range []struct {
		name  string
		seeds uint64
		sets  []params.KV
	}{
		{"zombie", 10, idem(true)},
		{"zombie", 5, append(idem(true), params.KV{Key: "app.mode", Value: "at-least-once"})},
		{"epochx", 10, append(idem(true), params.KV{Key: "net.response_loss", Value: "0.1"})},
		{"restart", 5, append(idem(false), params.KV{Key: "fault.producer.resend", Value: "true"}, params.KV{Key: "fault.count", Value: "6"})},
		// Replicated: the final reads come from the final leader's log.
		{"epochx", 5, append(idem(true), params.KV{Key: "net.response_loss", Value: "0.1"}, params.KV{Key: "brokers", Value: "3"})},
	} {
		sc, err := scenarios.Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= c.seeds; seed++ {
			r, h := runHistory(t, scenarios.Spec{Scenario: sc, Seed: seed, Sets: c.sets})
			invoked, completed := map[int64]int{}, map[int64]int{}
			record := map[int64]int64{}
			writes := map[int64]int{} // per logical record
			for i := range h.Ops {
				op := &h.Ops[i]
				if op.F == OpPoll {
					continue
				}
				seen := invoked
				if op.Type != OpInvoke {
					seen = completed
				}
				for _, m := range op.Value {
					if prev, ok := seen[m.Value]; ok {
						t.Fatalf("%s seed %d: value %d is written by operations %d and %d\nreproduce: %s -history h.jsonl", c.name, seed, m.Value, prev, op.Index, r.Reproduce)
					}
					seen[m.Value] = op.Index
					if rec, ok := record[m.Value]; ok && rec != m.Record {
						t.Fatalf("%s seed %d: value %d is record %d and %d", c.name, seed, m.Value, rec, m.Record)
					}
					record[m.Value] = m.Record
					if m.Value%1_000_000_000 != m.Record {
						t.Fatalf("%s seed %d: value %d does not write record %d", c.name, seed, m.Value, m.Record)
					}
					if op.Type == OpInvoke {
						writes[m.Record]++
					}
				}
			}
			// The final reads name the writes they read: every value was
			// written, and where an acknowledged offset holds the
			// acknowledged record, it holds the acknowledged write.
			acked := map[[2]int64]int64{}
			for i := range h.Ops {
				if op := &h.Ops[i]; op.Type == OpOK && op.F != OpPoll {
					for _, m := range op.Value {
						acked[[2]int64{int64(m.Key), m.Offset}] = m.Value
					}
				}
			}
			for _, f := range []Final{FinalReadCommitted, FinalReadUncommitted} {
				for k, rds := range finalRead(t, h, f) {
					for _, rd := range rds {
						if _, ok := invoked[rd.Value]; !ok {
							t.Fatalf("%s seed %d: %s reads value %d at %d/%d, which no operation wrote", c.name, seed, f, rd.Value, k, rd.Offset)
						}
						v, ok := acked[[2]int64{int64(k), rd.Offset}]
						if ok && record[v] == record[rd.Value] && v != rd.Value {
							t.Fatalf("%s seed %d: %s reads value %d at %d/%d, where value %d of the same record was acknowledged", c.name, seed, f, rd.Value, k, rd.Offset, v)
						}
					}
				}
			}
			for _, n := range writes {
				if n > 1 {
					resent++
				}
			}
			if c.name == "zombie" && seed == 1 && len(c.sets) == 1 && writes[30] != 2 {
				t.Errorf("zombie seed 1: record 30 is written %d times, want 2 (the zombie's aborted transaction, its replacement's)", writes[30])
			}
		}
	}
	if resent == 0 {
		t.Error("no record was sent again: the test shows nothing")
	}
}
