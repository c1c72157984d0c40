package check

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestSimOutcome: sent = acked + failed + pending + abandoned holds for a
// consistent stream (a record acknowledged by a second instance after the
// first failed it counts once), and a record without a send, or a send
// without an end state, is reported as a defect of the model.
func TestSimOutcome(t *testing.T) {
	fail := func(o model.Outcome) model.Outcome { o.Err, o.Offset = model.ErrRequestTimedOut, -1; return o }
	// 4 sent: a0:0 acked, a0:1 failed then acked elsewhere, a0:2 pending,
	// a0:3 abandoned by a crash.
	r := newRun(Config{Names: []string{"p1", "p2"}})
	for i := 0; i < 4; i++ {
		r.send(0, 0)
	}
	r.appendBatch(1, plain(0, 0, 0))
	r.outcome(acked(2, 0, 0, 0, 0))
	r.outcome(fail(acked(3, 0, 1, 0, -1)))
	r.appendBatch(4, plain(0, 0, 1))
	r.outcome(acked(5, 0, 1, 0, 1))
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.Node, o.N = model.ObsCrash, 6, 0, 1 })
	r.emit(func(o *model.Obs) { o.Kind, o.At, o.N, o.Abandoned, o.Text = model.ObsRunEnd, 7, 1, 1, "drained" })
	_, vs := r.s.Finish()
	for _, v := range vs {
		if v.Invariant == SimOutcome {
			t.Fatalf("consistent stream reported: %v", v)
		}
	}

	// One outcome too many (a record that was never sent).
	r = newRun(Config{})
	r.send(0, 0)
	r.outcome(acked(1, 0, 0, 0, 0))
	r.outcome(acked(2, 0, 1, 0, 1))
	_, vs = r.endAll(3, 0, "drained", 0)
	if got := names(vs); !strings.Contains(got, SimOutcome) {
		t.Fatalf("extra outcome not reported: %s", got)
	}
	// A record lost track of: sent, no outcome, not pending, not abandoned.
	r = newRun(Config{})
	r.send(0, 0)
	r.send(0, 0)
	r.appendBatch(1, plain(0, 0, 0))
	r.outcome(acked(2, 0, 0, 0, 0))
	_, vs = r.endAll(3, 0, "drained", 0)
	want := "sent 2 records but acked 1 + failed 0 + pending 0 + abandoned 0 = 1 (a defect of the model)"
	if len(vs) != 1 || vs[0].Invariant != SimOutcome || vs[0].Detail != want {
		t.Fatalf("violations %v, want one %s: %s", vs, SimOutcome, want)
	}
}
