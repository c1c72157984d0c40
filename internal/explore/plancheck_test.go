package explore

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// TestPlanInTimeOrder: a schedule's plan lists its lines in time order (a
// crash's restart after a later choice's pause, a message fault at 0s
// first), as the plan checks require; in choice order the explorer wrote
// "500µs crash c1", "10.0005s restart c1", "1.0205s pause p1 10s", which
// a -plan-file refuses.
func TestPlanInTimeOrder(t *testing.T) {
	s := &setup{menu: Menu{Crash: true, Pause: true, Drop: true, Down: 10 * time.Second, PauseFor: 10 * time.Second}, endText: "end 2m0.3s\n"}
	x := &sched{}
	for _, f := range []fault{
		{kind: fCrash, node: "c1", at: sim.Time(500 * time.Microsecond), length: 10 * time.Second},
		{kind: fPause, node: "p1", at: sim.Time(1020500 * time.Microsecond), length: 10 * time.Second},
		{kind: fDrop, dir: simnet.Request, reqNo: 3, client: "p1", server: "b1"},
		{kind: fCrash, node: "p1", at: sim.Time(10500500 * time.Microsecond), length: 10 * time.Second},
	} {
		x = &sched{parent: x, f: f, depth: x.depth + 1}
	}
	got := s.plan(x)
	want := "0s drop request 3 p1>b1\n500µs crash c1\n1.0205s pause p1 10s\n10.0005s restart c1\n10.5005s crash p1\n20.5005s restart p1\nend 2m0.3s\n"
	if got != want {
		t.Fatalf("plan:\n%s\nwant\n%s", got, want)
	}
	p, err := faults.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckSequence(); err != nil {
		t.Errorf("the plan fails its check: %v", err)
	}
}
