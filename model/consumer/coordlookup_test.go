package consumer

import (
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// sent is one message a group member sent or got, with its time.
type sent struct {
	at  sim.Time
	req bool
	m   model.Message
}

// recordAll makes w record every message to and from its consumers.
func recordAll(w *gWorld) *[]sent {
	var log []sent
	w.drop = func(i int, m model.Message, req bool) bool {
		log = append(log, sent{at: w.now, req: req, m: m})
		return false
	}
	return &log
}

// groupReqCoord returns a group request's Coord tag and whether m is one.
func groupReqCoord(m model.Message) (int32, bool) {
	switch m := m.(type) {
	case *model.JoinGroupRequest:
		return m.Coord, true
	case *model.SyncGroupRequest:
		return m.Coord, true
	case *model.HeartbeatRequest:
		return m.Coord, true
	case *model.LeaveGroupRequest:
		return m.Coord, true
	case *model.OffsetCommitRequest:
		return m.Coord, true
	case *model.ConsumerOffsetFetchRequest:
		return m.Coord, true
	}
	return 0, false
}

// TestGroupCoordinatorLookup: a member finds its group coordinator with
// FindCoordinator (key type GROUP) before its first group request and
// stamps every group request with the answer; when the coordinator
// moves from b1 to b2, its next request to b1 is answered NOT_COORDINATOR,
// it looks the coordinator up again at once (a trace note says so), and
// its requests go to b2 from then on; the member stays in its group and
// keeps committing.
func TestGroupCoordinatorLookup(t *testing.T) {
	w := newGWorld(t)
	log := recordAll(w)
	w.b.SetCoordinator(model.CoordKeyGroup, 0, true)
	w.g.Host(0, 0)
	w.produce(5)
	cfg := gCfg(0)
	i := w.add(cfg)
	w.run(4 * time.Second)
	w.checkSplit(1, []int{4}, i)
	moveAt := w.now
	w.g.Host(1, moveAt.Add(500*time.Millisecond))
	w.b.SetCoordinator(model.CoordKeyGroup, 1, true)
	w.run(12 * time.Second)
	w.checkSplit(1, []int{4}, i)
	if want := "NOT_COORDINATOR: looking the group coordinator up again (was b1)"; len(w.notes) != 1 || !strings.HasSuffix(w.notes[0], want) {
		t.Errorf("notes %q, want one ending %q", w.notes, want)
	}

	var finds []sim.Time
	var lostAt sim.Time = -1
	for k, s := range *log {
		if f, ok := s.m.(*model.FindCoordinatorRequest); ok {
			if f.KeyType != model.CoordKeyGroup || f.Key != gGroup {
				t.Fatalf("FindCoordinator %s", f.AppendDescription(nil))
			}
			finds = append(finds, s.at)
			continue
		}
		coord, ok := groupReqCoord(s.m)
		if !ok || !s.req {
			if e := answerErr(s.m); e == model.ErrNotCoordinator && lostAt < 0 {
				lostAt = s.at
				// The lookup goes out at once.
				next := (*log)[k+1:]
				if len(next) == 0 {
					t.Fatalf("nothing after NOT_COORDINATOR")
				}
				if _, ok := next[0].m.(*model.FindCoordinatorRequest); !ok || next[0].at != s.at.Add(time.Millisecond) {
					t.Errorf("after NOT_COORDINATOR at %v: %s at %v, want a FindCoordinator at once", s.at, next[0].m.AppendDescription(nil), next[0].at)
				}
			}
			continue
		}
		switch {
		case len(finds) == 0:
			t.Fatalf("%s sent before any FindCoordinator", s.m.AppendDescription(nil))
		case len(finds) == 1 && coord != model.CoordTag(0):
			t.Errorf("%s at %v: coord tag %d, want b1's", s.m.AppendDescription(nil), s.at, coord)
		case len(finds) == 2 && s.at > finds[1].Add(2*time.Millisecond) && coord != model.CoordTag(1):
			t.Errorf("%s at %v after the second lookup: coord tag %d, want b2's", s.m.AppendDescription(nil), s.at, coord)
		}
	}
	if len(finds) != 2 || lostAt < moveAt || finds[1] < lostAt {
		t.Fatalf("lookups at %v, NOT_COORDINATOR at %v (move at %v): want one lookup at the start and one after the NOT_COORDINATOR", finds, lostAt, moveAt)
	}
	if w.g.ConsumerCommitted(gGroup, 0) < 0 {
		t.Errorf("no commit")
	}
	var committedAfter bool
	for _, s := range *log {
		if r, ok := s.m.(*model.OffsetCommitResponse); ok && s.at > finds[1] && r.Err == model.ErrNone {
			committedAfter = true
		}
	}
	if !committedAfter {
		t.Errorf("no commit served by b2")
	}
}

// answerErr returns a group answer's error, ErrNone for anything else.
func answerErr(m model.Message) model.ErrCode {
	switch m := m.(type) {
	case *model.JoinGroupResponse:
		return m.Err
	case *model.SyncGroupResponse:
		return m.Err
	case *model.HeartbeatResponse:
		return m.Err
	case *model.LeaveGroupResponse:
		return m.Err
	case *model.OffsetCommitResponse:
		return m.Err
	case *model.ConsumerOffsetFetchResponse:
		return m.Err
	case *model.FindCoordinatorResponse:
		return m.Err
	}
	return model.ErrNone
}

// TestGroupCoordinatorLoadRetry: a member whose coordinator is still
// loading gets COORDINATOR_LOAD_IN_PROGRESS for its JoinGroup, keeps the
// coordinator (no second lookup) and sends the JoinGroup again after
// retry.backoff.ms each time, until the load ends and it joins; a
// FindCoordinator answered COORDINATOR_NOT_AVAILABLE is sent again after
// retry.backoff.ms.
func TestGroupCoordinatorLoadRetry(t *testing.T) {
	w := newGWorld(t)
	log := recordAll(w)
	w.b.SetCoordinator(model.CoordKeyGroup, 0, false) // no coordinator at first
	w.g.Host(0, sim.Time(2*time.Second))
	w.at(sim.Time(500*time.Millisecond), func() { w.b.SetCoordinator(model.CoordKeyGroup, 0, true) })
	w.produce(5)
	cfg := gCfg(0)
	cfg.RetryBackoff = 100 * time.Millisecond
	i := w.add(cfg)
	w.run(6 * time.Second)
	w.checkSplit(1, []int{4}, i)

	var finds, joins []sim.Time
	loading := 0
	for _, s := range *log {
		switch m := s.m.(type) {
		case *model.FindCoordinatorRequest:
			finds = append(finds, s.at)
		case *model.JoinGroupRequest:
			joins = append(joins, s.at)
		case *model.JoinGroupResponse:
			if m.Err == model.ErrCoordinatorLoadInProgress {
				loading++
			}
		}
	}
	// Lookups every 100 ms (plus the round trip) until 0.5 s, then one
	// answered.
	if len(finds) < 4 || finds[len(finds)-1] < sim.Time(500*time.Millisecond) {
		t.Fatalf("lookups at %v, want retries until 0.5 s", finds)
	}
	for k := 1; k < len(finds); k++ {
		if d := finds[k].Sub(finds[k-1]); d < cfg.RetryBackoff {
			t.Errorf("lookup %d %v after the previous one, want at least retry.backoff.ms", k, d)
		}
	}
	if loading < 10 {
		t.Errorf("%d JoinGroup answers COORDINATOR_LOAD_IN_PROGRESS, want one per retry.backoff.ms until 2 s", loading)
	}
	for k := 1; k < len(joins) && joins[k] < sim.Time(2*time.Second); k++ {
		if d := joins[k].Sub(joins[k-1]); d < cfg.RetryBackoff {
			t.Errorf("JoinGroup %d %v after the previous one, want at least retry.backoff.ms", k, d)
		}
	}
	if n := len(w.notes); n != len(finds)-1 || n == 0 || w.notes[0] != "FindCoordinator COORDINATOR_NOT_AVAILABLE, retrying" {
		t.Errorf("notes %q, want one per failed lookup", w.notes)
	}
}
