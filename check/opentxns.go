package check

import "github.com/idemsim/idemsim/model"

// openTxns follows, per partition, the transactions the stream shows
// open (a transactional batch appended, no marker yet for its producer
// id) and the markers appended, for the consumer invariants (INV-READ,
// LIVE-READ), which read it as the log view's otx. Its observe is in
// logview.go, beside its caller, so that an append's path through the
// checkers stays in that file. Partitions and producer ids are few:
// plain slices.
type openTxns struct {
	parts []partTxns
}

type partTxns struct {
	// open are the open transactions: producer id and first offset.
	open []model.AbortedTransaction
	// markers are the markers appended, in append order, as runs.
	markers []markerRun
}

type txnMarker struct {
	pid    model.ProducerID
	off    int64
	commit bool
}

// markerRun is n markers of one producer id and kind at offsets off,
// off+step, ...: a producer's transactions of the same size end in
// markers at regular offsets, 32 bytes a run where a marker took 24.
type markerRun struct {
	m       txnMarker
	step, n int64
}

// addMarker appends marker m to pt.markers.
func (pt *partTxns) addMarker(m txnMarker) {
	if n := len(pt.markers); n > 0 {
		r := &pt.markers[n-1]
		if r.m.pid == m.pid && r.m.commit == m.commit {
			last := r.m.off + (r.n-1)*r.step
			if d := m.off - last; d > 0 && (r.n == 1 || d == r.step) {
				r.step = d
				r.n++
				return
			}
		}
	}
	pt.markers = append(pt.markers, markerRun{m: m, n: 1})
}

// reset empties t, keeping the storage of its lists (beyond parts'
// length too) for the next run.
func (t *openTxns) reset() {
	if t.parts == nil {
		t.parts = []partTxns{}
	}
	t.parts = t.parts[:0]
}

func (t *openTxns) part(p int32) *partTxns {
	for int(p) >= len(t.parts) {
		if n := len(t.parts); n < cap(t.parts) {
			t.parts = t.parts[:n+1]
			pt := &t.parts[n]
			pt.open, pt.markers = pt.open[:0], pt.markers[:0]
			continue
		}
		t.parts = append(t.parts, partTxns{})
	}
	return &t.parts[p]
}

// The observation kinds the consumer invariants read (the appends and
// markers reach them through the log view's otx).
var (
	readKinds     = []model.ObsKind{model.ObsPoll}
	liveReadKinds = []model.ObsKind{model.ObsConsumerFetch}
	posKinds      = []model.ObsKind{model.ObsPoll, model.ObsConsumerReset, model.ObsCrash}
)

// lso returns partition p's last stable offset as the stream shows it,
// ignoring the high watermark: the first offset of its oldest open
// transaction, and the producer id holding it; ok is false when none is
// open.
func (t *openTxns) lso(p int32) (off int64, pid model.ProducerID, ok bool) {
	if int(p) >= len(t.parts) {
		return 0, 0, false
	}
	for _, x := range t.parts[p].open {
		if !ok || x.FirstOffset < off {
			off, pid, ok = x.FirstOffset, x.PID, true
		}
	}
	return off, pid, ok
}

// closer returns the marker that closed the transaction of pid holding
// offset off on partition p (the first marker of pid above off).
func (t *openTxns) closer(p int32, pid model.ProducerID, off int64) (txnMarker, bool) {
	if int(p) >= len(t.parts) {
		return txnMarker{}, false
	}
	var best txnMarker
	found := false
	for _, r := range t.parts[p].markers {
		if r.m.pid != pid {
			continue
		}
		// The run's first marker above off.
		j := int64(0)
		if r.m.off <= off {
			if r.n == 1 {
				continue
			}
			j = (off-r.m.off)/r.step + 1
		}
		if j >= r.n {
			continue
		}
		m := r.m
		m.off += j * r.step
		if !found || m.off < best.off {
			best, found = m, true
		}
	}
	return best, found
}
