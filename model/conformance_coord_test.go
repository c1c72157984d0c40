package model_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/coordinator"
	"github.com/idemsim/idemsim/sim"
)

// The coordinator side of the conformance runner: the coordinatorNode
// mode (requests through Coordinator.Step, marker answers, timers, crash
// and reload), the coord_* expectations and the check of
// __transaction_state against Kafka's transition table. The ops are
// documented in testdata/conformance/README.md.

// knownDiff lists our own vectors (testdata/conformance) that state Kafka's
// behaviour where the model is known to differ. Such a vector still runs:
// while it fails it is skipped with the reason and the failure; once it
// passes the test fails, so that it leaves this list.
var knownDiff = map[string]string{}

// coordPeer is the client every coordinator request of a vector comes from.
var coordPeer = model.Peer{Node: 9}

// coordStep hands m to the coordinator node and returns its reply. The
// markers it sends are in r.sent (this step only) and r.outstanding.
func (r *vecRunner) coordStep(m model.Message) (model.Message, error) {
	if r.down {
		return nil, fmt.Errorf("the coordinator is down (coord_crash without coord_restart)")
	}
	r.sent = nil
	reply, err := r.take(r.coord.Step(r.now, coordPeer, m))
	if err != nil {
		return nil, err
	}
	if reply == nil {
		return nil, fmt.Errorf("the coordinator did not answer %s", m.AppendDescription(nil))
	}
	return reply, nil
}

// take carries out a coordinator node's outputs: marker requests join
// r.outstanding and r.sent, wake-ups r.wakes. It returns the reply, if any.
func (r *vecRunner) take(outs []model.Out) (model.Message, error) {
	var reply model.Message
	for _, o := range outs {
		switch o.Kind {
		case model.OutReply:
			if reply != nil {
				return nil, fmt.Errorf("two replies to one request")
			}
			reply = o.Msg
		case model.OutSend:
			req, ok := o.Msg.(*model.WriteTxnMarkersRequest)
			if !ok {
				return nil, fmt.Errorf("the coordinator sent %T", o.Msg)
			}
			r.outstanding = append(r.outstanding, &sentMarkers{req: req})
			r.sent = append(r.sent, req.Markers...)
		case model.OutWake:
			r.wakes = append(r.wakes, o)
		case model.OutObserve:
		default:
			return nil, fmt.Errorf("unexpected coordinator output kind %d", o.Kind)
		}
	}
	return reply, nil
}

// advanceNode moves the clock to to, running every coordinator wake-up
// due by then at its own time, earliest first (the world's event loop).
func (r *vecRunner) advanceNode(to sim.Time) error {
	for {
		i := -1
		for j, w := range r.wakes {
			if w.At <= to && (i < 0 || w.At < r.wakes[i].At) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		w := r.wakes[i]
		r.wakes = slices.Delete(r.wakes, i, i+1)
		if w.At > r.now {
			r.now = w.At
		}
		r.sent = nil
		if _, err := r.take(r.coord.Wake(r.now, w.Timer)); err != nil {
			return err
		}
	}
	r.now = to
	return nil
}

// answerMarkers answers the outstanding WriteTxnMarkers requests, oldest
// first (only those carrying coordinator epoch ce, if ce >= 0): each
// marker with NONE, with the next name of errs, or, with deliver, with
// what the runner's partition answers when the marker is appended to it.
// The answer to a request of a crashed incarnation goes nowhere.
func (r *vecRunner) answerMarkers(ce int32, deliver bool, errs []string, expect json.RawMessage) error {
	var picked []*sentMarkers
	for _, m := range r.outstanding {
		if ce < 0 || (len(m.req.Markers) > 0 && m.req.Markers[0].CoordinatorEpoch == ce) {
			picked = append(picked, m)
		}
	}
	if len(picked) == 0 {
		return fmt.Errorf("no outstanding WriteTxnMarkers request")
	}
	r.outstanding = slices.DeleteFunc(r.outstanding, func(m *sentMarkers) bool { return slices.Contains(picked, m) })
	var (
		answered []model.TxnMarker
		results  []model.ErrCode
	)
	r.sent = nil
	for _, m := range picked {
		codes := make([]model.ErrCode, len(m.req.Markers))
		for i, mk := range m.req.Markers {
			switch {
			case deliver:
				codes[i] = r.part(mk.Partition).AppendMarker(r.now, mk.PID, mk.Epoch, mk.CoordinatorEpoch, mk.Marker).Err
			case errs != nil:
				if len(errs) == 0 {
					return fmt.Errorf("fewer errors than markers")
				}
				c, ok := model.ParseErrCode(errs[0])
				if !ok {
					return fmt.Errorf("unknown error %q", errs[0])
				}
				codes[i], errs = c, errs[1:]
			}
		}
		answered = append(answered, m.req.Markers...)
		results = append(results, codes...)
		if m.stale {
			continue
		}
		if _, err := r.take(r.coord.Step(r.now, model.Peer{}, &model.WriteTxnMarkersResponse{CorrelationID: m.req.CorrelationID,
			TransactionalID: m.req.TransactionalID, Errs: codes})); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("more errors than markers (%d left)", len(errs))
	}
	if expect == nil {
		return nil
	}
	ex, err := parseObj(expect, "markers", "results")
	if err != nil {
		return fmt.Errorf("expect: %v", err)
	}
	if ex.has("markers") {
		var want []json.RawMessage
		if err := ex.get("markers", &want, true); err != nil {
			return err
		}
		if err := expectMarkers(answered, want); err != nil {
			return err
		}
	}
	if ex.has("results") {
		var want []string
		if err := ex.get("results", &want, true); err != nil {
			return err
		}
		if err := expectErrNames(results, want); err != nil {
			return fmt.Errorf("results: %v", err)
		}
	}
	return nil
}

// expectTxn compares a transactional id's coordinator metadata with a
// coord_state expect.
func (r *vecRunner) expectTxn(id string, raw json.RawMessage) error {
	ex, err := parseObj(raw, "exists", "state", "pid", "epoch", "lastEpoch", "prevPid", "partitions", "markersPending")
	if err != nil {
		return fmt.Errorf("expect: %v", err)
	}
	m, ok := r.coord.Txn(id)
	if ex.has("exists") {
		var want bool
		if err := ex.get("exists", &want, true); err != nil {
			return err
		}
		if ok != want {
			return fmt.Errorf("exists = %v, want %v", ok, want)
		}
	}
	if ex.has("markersPending") {
		var want bool
		if err := ex.get("markersPending", &want, true); err != nil {
			return err
		}
		if got := r.coord.MarkersPending(id); got != want {
			return fmt.Errorf("markersPending = %v, want %v", got, want)
		}
	}
	if !ok {
		for _, k := range []string{"state", "pid", "epoch", "lastEpoch", "prevPid", "partitions"} {
			if ex.has(k) {
				return fmt.Errorf("%q unknown to the coordinator, but expect has %q", id, k)
			}
		}
		return nil
	}
	if ex.has("state") {
		var want string
		if err := ex.get("state", &want, true); err != nil {
			return err
		}
		if _, known := model.ParseTxnState(want); !known {
			return fmt.Errorf("unknown state %q", want)
		}
		if m.State.String() != want {
			return fmt.Errorf("state = %v, want %s", m.State, want)
		}
	}
	for _, c := range []struct {
		k   string
		got int64
	}{{"pid", int64(m.ProducerID)}, {"epoch", int64(m.ProducerEpoch)}, {"lastEpoch", int64(m.LastProducerEpoch)}, {"prevPid", int64(m.PrevProducerID)}} {
		if ex.has(c.k) {
			var want int64
			if err := ex.get(c.k, &want, true); err != nil {
				return err
			}
			if c.got != want {
				return fmt.Errorf("%s = %d, want %d", c.k, c.got, want)
			}
		}
	}
	if ex.has("partitions") {
		var want []int32
		if err := ex.get("partitions", &want, true); err != nil {
			return err
		}
		if !slices.Equal(m.Partitions, want) && !(len(m.Partitions) == 0 && len(want) == 0) {
			return fmt.Errorf("partitions = %v, want %v", m.Partitions, want)
		}
	}
	return nil
}

// expectTxnLog compares one id's __transaction_state records with a
// coord_log expect: one object per record, oldest first, each with
// "state" and optionally "pid", "epoch" and "partitions".
func expectTxnLog(got []coordinator.TxnLogRecord, want []json.RawMessage) error {
	show := func(rs []coordinator.TxnLogRecord) string {
		var b strings.Builder
		for i, r := range rs {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%v pid=%d e=%d %v", r.State, r.ProducerID, r.ProducerEpoch, r.Partitions)
		}
		return b.String()
	}
	if len(got) != len(want) {
		return fmt.Errorf("%d records [%s], want %d", len(got), show(got), len(want))
	}
	for i, w := range want {
		o, err := parseObj(w, "state", "pid", "epoch", "partitions")
		if err != nil {
			return fmt.Errorf("expect.records[%d]: %v", i, err)
		}
		var (
			state string
			pid   int64
			epoch int16
			parts []int32
		)
		if err := firstErr(o.get("state", &state, true), o.get("pid", &pid, false), o.get("epoch", &epoch, false), o.get("partitions", &parts, false)); err != nil {
			return err
		}
		g := got[i]
		bad := g.State.String() != state ||
			(o.has("pid") && int64(g.ProducerID) != pid) ||
			(o.has("epoch") && g.ProducerEpoch != epoch) ||
			(o.has("partitions") && !slices.Equal(g.Partitions, parts) && !(len(g.Partitions) == 0 && len(parts) == 0))
		if bad {
			return fmt.Errorf("record %d is %s; all records [%s]", i, show(got[i:i+1]), show(got))
		}
	}
	return nil
}

// expectMarkers compares markers with an expect "markers" list, in order:
// each {partition, pid, epoch, commit} and optionally coordinatorEpoch.
func expectMarkers(markers []model.TxnMarker, want []json.RawMessage) error {
	var gs, ws []string
	for i, w := range want {
		mo, err := parseObj(w, "partition", "pid", "epoch", "commit", "coordinatorEpoch")
		if err != nil {
			return fmt.Errorf("expect.markers: %v", err)
		}
		var (
			part   int32
			p      int64
			ep     int16
			commit bool
			ce     int32
		)
		if err := firstErr(mo.get("partition", &part, true), mo.get("pid", &p, true), mo.get("epoch", &ep, true), mo.get("commit", &commit, true),
			mo.get("coordinatorEpoch", &ce, false)); err != nil {
			return err
		}
		mt := model.MarkerAbort
		if commit {
			mt = model.MarkerCommit
		}
		ws = append(ws, fmt.Sprintf("p%d pid=%d e=%d %v", part, p, ep, mt))
		if mo.has("coordinatorEpoch") {
			ws[i] += fmt.Sprintf(" cE=%d", ce)
		}
	}
	for i, m := range markers {
		g := fmt.Sprintf("p%d pid=%d e=%d %v", m.Partition, m.PID, m.Epoch, m.Marker)
		if i < len(ws) && strings.Contains(ws[i], " cE=") {
			g += fmt.Sprintf(" cE=%d", m.CoordinatorEpoch)
		}
		gs = append(gs, g)
	}
	if strings.Join(gs, "; ") != strings.Join(ws, "; ") {
		return fmt.Errorf("markers = [%s], want [%s]", strings.Join(gs, "; "), strings.Join(ws, "; "))
	}
	return nil
}

// expectErrNames compares error codes with their expected Kafka names.
func expectErrNames(got []model.ErrCode, want []string) error {
	gs := make([]string, len(got))
	for i, e := range got {
		gs[i] = e.String()
	}
	if !slices.Equal(gs, want) {
		return fmt.Errorf("errors = %v, want %v", gs, want)
	}
	return nil
}

// checkTxnLog checks that every id's records on __transaction_state
// follow Kafka's transition table (TransactionState.validPreviousStates,
// TransactionMetadata.prepareTransitionTo): an id's first record, and the
// first after its tombstone, is Empty (InitProducerId creates ids) unless
// coord_seed installed it, in which case the seeded state precedes it;
// each later record's state may follow the one before. PrepareEpochFence
// is never on the log.
func checkTxnLog(log []coordinator.TxnLogRecord, seeded map[string]model.TxnState) error {
	prev := make(map[string]model.TxnState)
	for id, s := range seeded {
		prev[id] = s
	}
	for i, rec := range log {
		if rec.State == model.TxnPrepareEpochFence {
			return fmt.Errorf("record %d: %s logged PrepareEpochFence", i, rec.TransactionalID)
		}
		p, ok := prev[rec.TransactionalID]
		switch {
		case !ok && rec.State != model.TxnEmpty:
			return fmt.Errorf("record %d: %s starts with %v, not Empty", i, rec.TransactionalID, rec.State)
		case ok && !rec.State.CanFollow(p):
			return fmt.Errorf("record %d: illegal transition %v -> %v for %s", i, p, rec.State, rec.TransactionalID)
		}
		if rec.State == model.TxnDead {
			delete(prev, rec.TransactionalID)
			continue
		}
		prev[rec.TransactionalID] = rec.State
	}
	return nil
}

// TestCheckTxnLog: the runner's transition check accepts Kafka's legal
// paths and rejects the illegal ones, so that passing vectors mean
// something.
func TestCheckTxnLog(t *testing.T) {
	rec := func(id string, states ...model.TxnState) []coordinator.TxnLogRecord {
		var out []coordinator.TxnLogRecord
		for _, s := range states {
			out = append(out, coordinator.TxnLogRecord{TransactionalID: id, State: s})
		}
		return out
	}
	for _, c := range []struct {
		log    []coordinator.TxnLogRecord
		seeded map[string]model.TxnState
		ok     bool
	}{
		{rec("a", model.TxnEmpty, model.TxnOngoing, model.TxnPrepareCommit, model.TxnCompleteCommit, model.TxnOngoing, model.TxnPrepareAbort, model.TxnCompleteAbort, model.TxnEmpty, model.TxnDead, model.TxnEmpty), nil, true},
		{rec("a", model.TxnEmpty, model.TxnOngoing, model.TxnOngoing, model.TxnPrepareAbort, model.TxnCompleteAbort, model.TxnDead), nil, true},
		{rec("a", model.TxnEmpty, model.TxnOngoing, model.TxnCompleteCommit), nil, false},
		{rec("a", model.TxnEmpty, model.TxnOngoing, model.TxnPrepareCommit, model.TxnCompleteAbort), nil, false},
		{rec("a", model.TxnEmpty, model.TxnOngoing, model.TxnPrepareEpochFence, model.TxnPrepareAbort), nil, false},
		{rec("a", model.TxnEmpty, model.TxnOngoing, model.TxnDead), nil, false},
		{rec("a", model.TxnEmpty, model.TxnPrepareCommit), nil, false},
		{rec("a", model.TxnOngoing), nil, false},
		{rec("a", model.TxnEmpty, model.TxnDead, model.TxnOngoing), nil, false},
		{rec("a", model.TxnPrepareAbort), map[string]model.TxnState{"a": model.TxnOngoing}, true},
		{rec("a", model.TxnCompleteAbort), map[string]model.TxnState{"a": model.TxnOngoing}, false},
	} {
		err := checkTxnLog(c.log, c.seeded)
		if (err == nil) != c.ok {
			t.Errorf("%v (seeded %v): %v, want ok=%v", c.log, c.seeded, err, c.ok)
		}
	}
}
