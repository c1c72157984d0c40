package admin

import (
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

func at(ms int64) sim.Time { return sim.Time(time.Duration(ms) * time.Millisecond) }

// sends returns the effects' messages sent, and the admin's lines.
func split(outs []model.Out) (sent []model.Out, lines []string) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutSend:
			sent = append(sent, o)
		case model.OutObserve:
			lines = append(lines, o.Obs.Text)
		}
	}
	return sent, lines
}

func one(t *testing.T, outs []model.Out) (model.Out, []string) {
	t.Helper()
	sent, lines := split(outs)
	if len(sent) != 1 {
		t.Fatalf("want one request, got %d (lines %q)", len(sent), lines)
	}
	return sent[0], lines
}

func owed(outs []model.Out) bool {
	for _, o := range outs {
		if o.Kind == model.OutWake && o.Owed {
			return true
		}
	}
	return false
}

// TestExplicitAbort: abort --producer-id --producer-epoch
// --coordinator-epoch writes one ABORT marker through the leader at once,
// a negative coordinator epoch as 0, and is done at the answer.
func TestExplicitAbort(t *testing.T) {
	a := New(Config{Leaders: []int32{1, 0}, Brokers: 2})
	o, _ := one(t, a.Abort(at(0), AbortSpec{Partition: 0, PID: 5, Epoch: 2, CoordinatorEpoch: -1, StartOffset: -1}))
	m, ok := o.Msg.(*model.WriteTxnMarkersRequest)
	if !ok || o.Dest != 1 || len(m.Markers) != 1 {
		t.Fatalf("sent %s to %d", o.Msg.AppendDescription(nil), o.Dest)
	}
	if mk := m.Markers[0]; mk.PID != 5 || mk.Epoch != 2 || mk.CoordinatorEpoch != 0 || mk.Marker != model.MarkerAbort || mk.Partition != 0 {
		t.Fatalf("marker %+v", mk)
	}
	outs := a.Step(at(2), model.Peer{}, &model.WriteTxnMarkersResponse{CorrelationID: m.CorrelationID, Errs: []model.ErrCode{model.ErrNone}})
	_, lines := split(outs)
	if len(lines) != 1 || lines[0] != "abort p0 pid 5 epoch 2 coordinator-epoch 0: NONE" || owed(outs) {
		t.Fatalf("lines %q, owed %v", lines, owed(outs))
	}
}

// findHanging runs find-hanging on p0 with one open transaction of pid 7
// whose transactional id the coordinator describes as desc; it returns
// the effects of the describe answer.
func findHanging(t *testing.T, a *Admin, desc model.TxnDescription) []model.Out {
	t.Helper()
	o, _ := one(t, a.Abort(at(0), AbortSpec{Partition: 0, PID: model.NoProducerID, StartOffset: -1}))
	dp, ok := o.Msg.(*model.DescribeProducersRequest)
	if !ok || o.Dest != 1 {
		t.Fatalf("sent %s to %d", o.Msg.AppendDescription(nil), o.Dest)
	}
	o, lines := one(t, a.Step(at(1), model.Peer{}, &model.DescribeProducersResponse{CorrelationID: dp.CorrelationID, Partition: 0, Producers: []model.ProducerState{
		{PID: 3, Epoch: 0, LastSequence: 9, CoordinatorEpoch: 0, TxnStartOffset: -1},
		{PID: 7, Epoch: 3, LastSequence: 4, CoordinatorEpoch: -1, TxnStartOffset: 10},
	}}))
	if len(lines) != 1 || !strings.Contains(lines[0], "2 active; pid 3 ") {
		t.Fatalf("describe line %q", lines)
	}
	lt, ok := o.Msg.(*model.ListTransactionsRequest)
	if !ok || o.Dest != model.DestCoordinator || len(lt.ProducerIDs) != 1 || lt.ProducerIDs[0] != 7 {
		t.Fatalf("sent %s to %d", o.Msg.AppendDescription(nil), o.Dest)
	}
	o, _ = one(t, a.Step(at(2), model.Peer{}, &model.ListTransactionsResponse{CorrelationID: lt.CorrelationID, Txns: []model.TxnListing{{TransactionalID: "t1", PID: 7, State: desc.State}}}))
	dt, ok := o.Msg.(*model.DescribeTransactionsRequest)
	if !ok || len(dt.TransactionalIDs) != 1 || dt.TransactionalIDs[0] != "t1" {
		t.Fatalf("sent %s", o.Msg.AppendDescription(nil))
	}
	return a.Step(at(3), model.Peer{}, &model.DescribeTransactionsResponse{CorrelationID: dt.CorrelationID, Txns: []model.TxnDescription{desc}})
}

// TestFindHanging: an open transaction whose transactional id the
// coordinator holds Ongoing with the partition is not hanging; one it
// holds without the partition is, and is aborted with the epoch
// DescribeProducers gave and coordinator epoch 0 for -1.
func TestFindHanging(t *testing.T) {
	a := New(Config{Leaders: []int32{1}, Brokers: 2})
	outs := findHanging(t, a, model.TxnDescription{TransactionalID: "t1", PID: 7, Epoch: 3, State: model.TxnOngoing, Partitions: []int32{0}})
	sent, lines := split(outs)
	if len(sent) != 0 || len(lines) != 2 || lines[1] != "find-hanging p0: 0 hanging" || owed(outs) {
		t.Fatalf("ongoing with p0: sent %d, lines %q", len(sent), lines)
	}
	outs = findHanging(t, a, model.TxnDescription{TransactionalID: "t1", PID: 7, Epoch: 4, State: model.TxnCompleteAbort})
	o, lines := one(t, outs)
	if lines[1] != "find-hanging p0: 1 hanging; pid 7 epoch 3 coordinator-epoch -1 start-offset 10" {
		t.Fatalf("lines %q", lines)
	}
	m := o.Msg.(*model.WriteTxnMarkersRequest)
	if mk := m.Markers[0]; o.Dest != 1 || mk.PID != 7 || mk.Epoch != 3 || mk.CoordinatorEpoch != 0 || mk.Marker != model.MarkerAbort {
		t.Fatalf("marker %+v to %d", mk, o.Dest)
	}
}

// TestAbortRetriesAtNewLeader: NOT_LEADER_OR_FOLLOWER looks the leader
// up again (Metadata) and retries after retry.backoff.ms at the new
// leader; a request without an answer within request.timeout.ms closes
// its connection and is retried.
func TestAbortRetriesAtNewLeader(t *testing.T) {
	a := New(Config{Leaders: []int32{0}, Brokers: 2, RetryBackoff: 100 * time.Millisecond, RequestTimeout: time.Second})
	o, _ := one(t, a.Abort(at(0), AbortSpec{Partition: 0, PID: 5, Epoch: 1, StartOffset: -1}))
	m := o.Msg.(*model.WriteTxnMarkersRequest)
	outs := a.Step(at(5), model.Peer{}, &model.WriteTxnMarkersResponse{CorrelationID: m.CorrelationID, Errs: []model.ErrCode{model.ErrNotLeaderOrFollower}})
	if sent, _ := split(outs); len(sent) != 0 || !owed(outs) {
		t.Fatalf("retried at once: %d sent", len(sent))
	}
	o, _ = one(t, a.Wake(at(105), a.token))
	md, ok := o.Msg.(*model.MetadataRequest)
	if !ok {
		t.Fatalf("sent %s, want Metadata", o.Msg.AppendDescription(nil))
	}
	// No answer: at request.timeout.ms the connection closes and the
	// next broker is asked.
	outs = a.Wake(at(1105), a.token)
	var closed bool
	for _, x := range outs {
		closed = closed || x.Kind == model.OutClose && x.Dest == o.Dest
	}
	if !closed {
		t.Fatalf("no close of %d after the timeout", o.Dest)
	}
	o, _ = one(t, a.Wake(at(1205), a.token))
	md2 := o.Msg.(*model.MetadataRequest)
	if md2.CorrelationID == md.CorrelationID || o.Dest != 1 {
		t.Fatalf("metadata retry %s to %d", o.Msg.AppendDescription(nil), o.Dest)
	}
	o, _ = one(t, a.Step(at(1210), model.Peer{}, &model.MetadataResponse{CorrelationID: md2.CorrelationID, Leaders: []int32{1}, Epochs: []int32{1}}))
	if _, ok := o.Msg.(*model.WriteTxnMarkersRequest); !ok || o.Dest != 1 {
		t.Fatalf("sent %s to %d, want the abort at b2", o.Msg.AppendDescription(nil), o.Dest)
	}
}

// TestStartOffsetNotFound: abort --start-offset with no open transaction
// there ends the command with a line and no marker.
func TestStartOffsetNotFound(t *testing.T) {
	a := New(Config{Leaders: []int32{0}, Brokers: 1})
	o, _ := one(t, a.Abort(at(0), AbortSpec{Partition: 0, PID: model.NoProducerID, StartOffset: 4}))
	dp := o.Msg.(*model.DescribeProducersRequest)
	outs := a.Step(at(1), model.Peer{}, &model.DescribeProducersResponse{CorrelationID: dp.CorrelationID, Producers: []model.ProducerState{{PID: 2, TxnStartOffset: 6}}})
	sent, lines := split(outs)
	if len(sent) != 0 || len(lines) != 2 || lines[1] != "abort p0: no open transaction starts at offset 4" || owed(outs) {
		t.Fatalf("sent %d, lines %q", len(sent), lines)
	}
}

// TestCommandsQueue: a second command waits for the first, and a command
// past default.api.timeout.ms gives up.
func TestCommandsQueue(t *testing.T) {
	a := New(Config{Leaders: []int32{0}, Brokers: 1, APITimeout: 10 * time.Second, RequestTimeout: 30 * time.Second})
	one(t, a.Abort(at(0), AbortSpec{Partition: 0, PID: 5, StartOffset: -1}))
	if sent, _ := split(a.Abort(at(1), AbortSpec{Partition: 0, PID: 6, StartOffset: -1})); len(sent) != 0 {
		t.Fatalf("second command sent %d requests while the first ran", len(sent))
	}
	o, lines := one(t, a.Wake(at(10_000), a.token))
	if len(lines) != 1 || !strings.Contains(lines[0], "failed: default.api.timeout.ms passed") {
		t.Fatalf("lines %q", lines)
	}
	if m := o.Msg.(*model.WriteTxnMarkersRequest); m.Markers[0].PID != 6 {
		t.Fatalf("next command aborts pid %d", m.Markers[0].PID)
	}
}
