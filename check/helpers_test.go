package check

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// run feeds a Suite an observation stream the way the world will: one Obs
// value reused for every observation, scribbled over after each Observe,
// so that a suite which kept o past the call reads garbage.
type run struct {
	s    *Suite
	o    model.Obs
	next []int64 // next offset per partition
}

func newRun(cfg Config) *run { return &run{s: NewSuite(cfg)} }

func (r *run) emit(fill func(o *model.Obs)) {
	r.o = model.Obs{Node: -1, Peer: -1}
	fill(&r.o)
	r.s.Observe(&r.o)
	r.o = model.Obs{Kind: model.ObsMetadataFlap, At: -777, Node: 999, Partition: 999, PID: 999, Epoch: 999, N: 999,
		Text: "scribbled", Batch: model.Batch{Partition: 999, PID: 999, Epoch: 999, FirstSeq: 999},
		Result: model.AppendResult{FirstOffset: 999, LastOffset: 999}, Orig: model.LogEntry{FirstOffset: 999}}
}

func (r *run) offset(p int32, n int) int64 {
	for int(p) >= len(r.next) {
		r.next = append(r.next, 0)
	}
	off := r.next[p]
	r.next[p] += int64(n)
	return off
}

func (r *run) send(at sim.Time, app int32) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.App = model.ObsAppSend, at, app })
}

func (r *run) resend(at sim.Time, app int32) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.App = model.ObsAppResend, at, app })
}

func (r *run) outcome(out model.Outcome) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.Outcome = model.ObsOutcome, out.At, out })
}

// appendBatch observes b appended at the partition's next offset and
// returns the log entry the broker would hold.
func (r *run) appendBatch(at sim.Time, b model.Batch) model.LogEntry {
	first := r.offset(b.Partition, len(b.Records))
	last := first + int64(len(b.Records)) - 1
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Batch = model.ObsVerdict, at, b
		o.Result = model.AppendResult{Err: model.ErrNone, FirstOffset: first, LastOffset: last}
	})
	return model.LogEntry{FirstOffset: first, LastOffset: last, Batch: b, AppendedAt: at, CoordinatorEpoch: -1}
}

func (r *run) reject(at sim.Time, b model.Batch, err model.ErrCode) {
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Batch = model.ObsVerdict, at, b
		o.Result = model.AppendResult{Err: err, FirstOffset: -1, LastOffset: -1}
	})
}

// duplicate observes b answered as a duplicate of orig (nil: nothing).
func (r *run) duplicate(at sim.Time, b model.Batch, orig *model.LogEntry) {
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Batch = model.ObsVerdict, at, b
		o.Result = model.AppendResult{Err: model.ErrNone, FirstOffset: -1, LastOffset: -1, Duplicate: true}
		if orig != nil {
			o.Orig, o.OrigFound = *orig, true
			o.Result.FirstOffset, o.Result.LastOffset = orig.FirstOffset, orig.LastOffset
		}
	})
}

func (r *run) marker(at sim.Time, p int32, pid model.ProducerID, m model.MarkerType) {
	off := r.offset(p, 1)
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Partition, o.PID, o.Marker = model.ObsMarker, at, p, pid, m
		o.Result = model.AppendResult{Err: model.ErrNone, FirstOffset: off, LastOffset: off}
	})
}

func (r *run) markerRefused(at sim.Time, p int32, pid model.ProducerID, m model.MarkerType) {
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Partition, o.PID, o.Marker, o.Err = model.ObsMarker, at, p, pid, m, model.ErrInvalidProducerEpoch
		o.Result = model.AppendResult{Err: model.ErrInvalidProducerEpoch, FirstOffset: -1, LastOffset: -1}
	})
}

func (r *run) epoch(at sim.Time, pid model.ProducerID, e int16) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.PID, o.Epoch = model.ObsEpoch, at, pid, e })
}

func (r *run) epochRefused(at sim.Time, pid model.ProducerID, e int16) {
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.PID, o.Epoch, o.Err = model.ObsEpoch, at, pid, e, model.ErrConcurrentTransactions
	})
}

func (r *run) stateCheck(at sim.Time, p int32, diff string) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.Partition, o.Text = model.ObsStateCheck, at, p, diff })
}

func (r *run) start(at sim.Time, node, app int32) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.Node, o.App = model.ObsStart, at, node, app })
}

func (r *run) active(at sim.Time, node, app int32) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.Node, o.App = model.ObsActive, at, node, app })
}

func (r *run) fatal(at sim.Time, node int32, err model.ErrCode) {
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Node, o.NoteKind, o.Err = model.ObsNote, at, node, model.NoteFatal, err
		o.Text = "fatal " + err.String() + ": instance stops"
	})
}

func (r *run) note(at sim.Time, node int32, k model.NoteKind, err model.ErrCode) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.Node, o.NoteKind, o.Err = model.ObsNote, at, node, k, err })
}

func (r *run) restart(at sim.Time, node int32) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.Node = model.ObsRestart, at, node })
}

func (r *run) crash(at sim.Time, node int32) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.Node = model.ObsCrash, at, node })
}

// end observes the run's end and judges it.
//
// Most tests feed partial streams (outcomes without the sends that made
// them), so end leaves out the simulator's accounting invariant
// (SIM-OUTCOME); endAll keeps it.
func (r *run) end(at sim.Time, pending int64, stop string, planEnd sim.Time) (Counts, []Violation) {
	c, vs := r.endAll(at, pending, stop, planEnd)
	out := vs[:0:0]
	for _, v := range vs {
		if v.Invariant != SimOutcome {
			out = append(out, v)
		}
	}
	return c, out
}

// endAll ends the run and returns every violation.
func (r *run) endAll(at sim.Time, pending int64, stop string, planEnd sim.Time) (Counts, []Violation) {
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.N, o.Text, o.Until = model.ObsRunEnd, at, pending, stop, planEnd })
	return r.s.Finish()
}

// batch is a batch of pid at epoch with sequences first.. and records
// a0:first.. on partition 0 (idempotent when pid >= 0).
func batch(pid model.ProducerID, epoch int16, first int32, n int) model.Batch {
	b := model.Batch{PID: pid, Epoch: epoch, FirstSeq: first, LastSeq: first + int32(n) - 1}
	for i := 0; i < n; i++ {
		b.Records = append(b.Records, model.Record{ID: model.RecordID{N: int64(first) + int64(i)}})
	}
	return b
}

// plain is a batch without idempotence on partition p holding the given
// records of application app (payload generation 0).
func plain(p int32, app int32, ns ...int64) model.Batch {
	b := model.Batch{Partition: p, PID: model.NoProducerID, Epoch: -1, FirstSeq: model.NoSequence, LastSeq: model.NoSequence}
	for _, n := range ns {
		id := model.RecordID{App: app, N: n}
		b.Records = append(b.Records, model.Record{ID: id, Partition: p, Digest: model.Digest(id, 0)})
	}
	return b
}

// txn is a transactional batch of pid on partition p holding records of
// application 0.
func txn(p int32, pid model.ProducerID, first int32, ns ...int64) model.Batch {
	b := model.Batch{Partition: p, PID: pid, FirstSeq: first, LastSeq: first + int32(len(ns)) - 1, Transactional: true}
	for _, n := range ns {
		id := model.RecordID{N: n}
		b.Records = append(b.Records, model.Record{ID: id, Partition: p, Digest: model.Digest(id, 0)})
	}
	return b
}

// acked is the acknowledgement of record a<app>:<n> at offset off of p.
func acked(at sim.Time, app int32, n int64, p int32, off int64) model.Outcome {
	id := model.RecordID{App: app, N: n}
	return model.Outcome{ID: id, Partition: p, Offset: off, At: at, Digest: model.Digest(id, 0)}
}

func names(vs []Violation) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.Invariant)
	}
	return strings.Join(s, ",")
}

func only(vs []Violation, inv string) []Violation {
	var out []Violation
	for _, v := range vs {
		if v.Invariant == inv {
			out = append(out, v)
		}
	}
	return out
}

func without(vs []Violation, invs ...string) []Violation {
	var out []Violation
next:
	for _, v := range vs {
		for _, inv := range invs {
			if v.Invariant == inv {
				continue next
			}
		}
		out = append(out, v)
	}
	return out
}

func wantViolations(t *testing.T, got, want []Violation) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d violations, want %d:\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("violation %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}
}
