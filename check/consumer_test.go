package check

import (
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

func msAt(n int64) sim.Time { return sim.Time(n * int64(time.Millisecond)) }

// txnAppend is the verdict of pid's transactional batch at off..off+n-1.
func txnAppend(part int32, pid model.ProducerID, off int64, n int) model.Obs {
	return model.Obs{Kind: model.ObsVerdict, Batch: model.Batch{Partition: part, PID: pid, Transactional: true, Records: make([]model.Record, n)},
		Result: model.AppendResult{FirstOffset: off, LastOffset: off + int64(n) - 1}}
}

func markerObs(part int32, pid model.ProducerID, off int64, m model.MarkerType) model.Obs {
	return model.Obs{Kind: model.ObsMarker, Partition: part, PID: pid, Marker: m, Result: model.AppendResult{FirstOffset: off, LastOffset: off}}
}

// pollObs is a read_committed poll returning the entry of pid (txn) at
// first..last and moving the position from..to.
func pollObs(at int64, part int32, pid model.ProducerID, txn bool, first, last, from, to int64) model.Obs {
	e := model.LogEntry{FirstOffset: first, LastOffset: last, Batch: model.Batch{Partition: part, PID: pid, Transactional: txn}}
	return model.Obs{Kind: model.ObsPoll, At: msAt(at), Node: 3, Partition: part, Flag: true, N: last - first + 1, Log: []model.LogEntry{e},
		Result: model.AppendResult{FirstOffset: from, LastOffset: to}}
}

func judge(inv invariant, cfg Config, obs []model.Obs) []Violation {
	lv := &logView{}
	lv.reset(false)
	inv.reset(cfg, lv)
	for i := range obs {
		lv.observe(&obs[i]) // as the suite does, before the invariants
		inv.Observe(&obs[i])
	}
	return inv.Finish()
}

// TestInvRead: a read_committed poll of a committed transaction passes;
// one of an aborted transaction, and one at or above the stream's LSO,
// are violations.
func TestInvRead(t *testing.T) {
	base := []model.Obs{
		txnAppend(0, 7, 0, 2), markerObs(0, 7, 2, model.MarkerCommit),
		txnAppend(0, 8, 3, 1), markerObs(0, 8, 4, model.MarkerAbort),
		txnAppend(0, 9, 5, 1),
	}
	ok := append(base, pollObs(10, 0, 7, true, 0, 1, 0, 5))
	if vs := judge(newRead(), Config{}, ok); len(vs) != 0 {
		t.Fatalf("committed read: %v", vs)
	}
	for _, tc := range []struct {
		poll model.Obs
		want string
	}{
		{pollObs(10, 0, 8, true, 3, 3, 0, 5), "aborted by the marker at 4"},
		{pollObs(10, 0, 9, true, 5, 5, 0, 6), "at or above the last stable offset 5"},
	} {
		vs := judge(newRead(), Config{}, append(append([]model.Obs{}, base...), tc.poll))
		if len(vs) != 1 || !strings.Contains(vs[0].Detail, tc.want) {
			t.Errorf("want one violation saying %q, got %v", tc.want, vs)
		}
	}
	// read_uncommitted reads what it likes.
	ru := pollObs(10, 0, 9, true, 5, 5, 0, 6)
	ru.Flag = false
	if vs := judge(newRead(), Config{}, append(append([]model.Obs{}, base...), ru)); len(vs) != 0 {
		t.Errorf("read_uncommitted poll judged: %v", vs)
	}
}

// TestInvPos: polls that continue the position, and a logged reset that
// moves it back, pass; a poll that starts elsewhere is a violation; a
// crash forgets the position.
func TestInvPos(t *testing.T) {
	reset := func(off int64) model.Obs {
		return model.Obs{Kind: model.ObsConsumerReset, Node: 3, Partition: 0, N: off}
	}
	good := []model.Obs{reset(0), pollObs(1, 0, -1, false, 0, 4, 0, 5), pollObs(2, 0, -1, false, 5, 6, 5, 7), reset(2), pollObs(3, 0, -1, false, 2, 2, 2, 3)}
	if vs := judge(newPos(), Config{}, good); len(vs) != 0 {
		t.Fatalf("good positions: %v", vs)
	}
	bad := []model.Obs{reset(0), pollObs(1, 0, -1, false, 0, 4, 0, 5), pollObs(2, 0, -1, false, 2, 3, 2, 4)}
	if vs := judge(newPos(), Config{}, bad); len(vs) != 1 || !strings.Contains(vs[0].Detail, "starts at 2, but its position was 5") {
		t.Errorf("a jump back without a reset: %v", vs)
	}
	crashed := []model.Obs{reset(0), {Kind: model.ObsCrash, Node: 3}, pollObs(2, 0, -1, false, 0, 1, 0, 2)}
	if vs := judge(newPos(), Config{}, crashed); len(vs) != 1 {
		t.Errorf("a poll after a crash without a reset: %v", vs)
	}
}

// TestLiveRead: a read_committed consumer at the LSO with the high
// watermark above it, for longer than the bound, is reported with the
// transaction that holds it; a shorter wait, or an LSO that moves, is
// not.
func TestLiveRead(t *testing.T) {
	fetch := func(at, pos, lso, hw int64) model.Obs {
		return model.Obs{Kind: model.ObsConsumerFetch, At: msAt(at), Node: 3, Partition: 0, N: pos, Flag: true,
			Result: model.AppendResult{FirstOffset: lso, LastOffset: hw}}
	}
	end := func(at int64) model.Obs { return model.Obs{Kind: model.ObsRunEnd, At: msAt(at)} }
	cfg := Config{ConsumerStuck: 2 * time.Second, Names: []string{"p1", "b1", "c1", "r1"}}
	stuck := []model.Obs{txnAppend(0, 7, 4, 1), fetch(0, 4, 4, 5), fetch(1000, 4, 4, 6), fetch(2500, 4, 4, 6), end(3000)}
	vs := judge(newLiveRead(), cfg, stuck)
	if len(vs) != 1 || !strings.Contains(vs[0].Detail, "r1 waited 3s (bound 2s) at p0 offset 4") || !strings.Contains(vs[0].Detail, "pid 7") {
		t.Fatalf("stuck 3s with bound 2s: %v", vs)
	}
	short := []model.Obs{txnAppend(0, 7, 4, 1), fetch(0, 4, 4, 5), fetch(1000, 4, 4, 6), end(1500)}
	if vs := judge(newLiveRead(), cfg, short); len(vs) != 0 {
		t.Errorf("stuck 1.5s with bound 2s: %v", vs)
	}
	moving := []model.Obs{fetch(0, 4, 4, 5), fetch(1500, 6, 6, 8), fetch(2900, 8, 8, 9), end(3000)}
	if vs := judge(newLiveRead(), cfg, moving); len(vs) != 0 {
		t.Errorf("an LSO that moves: %v", vs)
	}
}
