package check

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestFenceReplicatedFinalLog: in a replicated run INV-FENCE judges the
// appends that stayed in the final committed log. A late batch of
// transaction 1 appended after the COMMIT that closed it is reported when
// the final log holds that very append (and marker); a deposed leader's
// append there, which the final log does not hold (the new leader's entry
// at that offset was written at another time, or the log ends before it),
// and an append after a marker the final log does not hold, are not. The
// epoch clause (a batch of an epoch the coordinator had moved past) is
// judged the same way. Without replication every append is judged.
func TestFenceReplicatedFinalLog(t *testing.T) {
	const late = "p0 pid=7 e=0 seq=1..1 txn n=1 [a0:2] of p1 transaction 1 appended at offset 2 after the marker at offset 1 closed that transaction or a later one of its instance"
	const old = "p0 pid=7 e=0 seq=1..1 txn n=1 [a0:2] appended at offset 2 after the coordinator moved pid 7 to epoch 1"
	data0 := model.LogEntry{FirstOffset: 0, LastOffset: 0, Batch: tb(0, 7, 1, 0, 1), AppendedAt: 1, CoordinatorEpoch: -1}
	commit1 := model.LogEntry{FirstOffset: 1, LastOffset: 1, Batch: model.Batch{PID: 7, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Transactional: true},
		AppendedAt: 2, Marker: model.MarkerCommit}
	late2 := model.LogEntry{FirstOffset: 2, LastOffset: 2, Batch: tb(0, 7, 1, 1, 2), AppendedAt: 3, CoordinatorEpoch: -1}
	moved := func(e model.LogEntry, at int64) model.LogEntry { e.AppendedAt = sim.Time(at); return e }
	for _, tc := range []struct {
		name       string
		replicated bool
		final      []model.LogEntry
		want       []Violation
	}{
		{"unreplicated", false, nil, []Violation{{InvFence, old, 3}, {InvFence, late, 3}}},
		{"stayed", true, []model.LogEntry{data0, commit1, late2}, []Violation{{InvFence, old, 3}, {InvFence, late, 3}}},
		{"another leader's entry at its offset", true, []model.LogEntry{data0, commit1, moved(late2, 4)}, nil},
		{"truncated", true, []model.LogEntry{data0, commit1}, nil},
		{"after a marker not in the final log", true, []model.LogEntry{data0, moved(commit1, 1), late2}, []Violation{{InvFence, old, 3}}},
		{"no final log", true, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := txnNames
			cfg.Replicated = tc.replicated
			r := newRun(cfg)
			r.appendFrom(1, instP1, 1, tb(0, 7, 1, 0, 1)) // offset 0
			markerAt(r, 2, 0, 7, model.MarkerCommit)      // offset 1
			r.epoch(2, 7, 1)                              // the coordinator's bump (transaction version 2)
			r.appendFrom(3, instP1, 2, tb(0, 7, 1, 1, 2)) // offset 2: late, of epoch 0
			if tc.final != nil {
				r.emit(func(o *model.Obs) { o.Kind, o.Partition, o.Node, o.Log = model.ObsFinalLog, 0, nodeB1, tc.final })
			}
			_, vs := r.end(9, 0, "drained", 0)
			wantViolations(t, only(vs, InvFence), tc.want)
		})
	}
}
