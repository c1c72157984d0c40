package scenarios

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// Transactions on the coordinator side of the world. The coordinator's
// WriteTxnMarkers round-trips are not modelled: markers reach the partitions
// at once, and the coordinator then completes the transaction.

// coordinatorRequest handles AddPartitionsToTxn and EndTxn at c1.
func (w *World) coordinatorRequest(now sim.Time, wr *wire, m model.Message, c simnet.Conn) {
	var resp *model.TxnResponse
	switch r := m.(type) {
	case *model.AddPartitionsToTxnRequest:
		err := w.coord.AddPartitionsToTxn(now, r.TransactionalID, r.PID, r.Epoch, r.Partitions)
		w.line(now, "c1", "add-partitions-to-txn "+r.TransactionalID+" -> "+err.String())
		resp = &model.TxnResponse{CorrelationID: r.CorrelationID, Op: "AddPartitionsToTxn", Err: err}
	case *model.EndTxnRequestMsg:
		res := w.coord.EndTxn(now, model.EndTxnRequest{TransactionalID: r.TransactionalID, ProducerID: r.PID, ProducerEpoch: r.Epoch, Commit: r.Commit})
		w.line(now, "c1", "end-txn "+r.TransactionalID+" -> "+res.Err.String())
		w.writeMarkers(now, r.TransactionalID, res.Markers)
		resp = &model.TxnResponse{CorrelationID: r.CorrelationID, Op: "EndTxn", Err: res.Err}
	}
	w.send(now, wr.inst, wr.dest, resp, c, simnet.Response, wr.reqNo, wr.inc)
}

// writeMarkers appends the coordinator's markers to their partitions, feeds
// them to the checker, and tells the coordinator they are written.
func (w *World) writeMarkers(now sim.Time, txnID string, markers []model.TxnMarker) {
	if len(markers) == 0 {
		return
	}
	for _, mk := range markers {
		p := w.broker.Partition(mk.Partition)
		r := p.AppendMarker(now, mk.PID, mk.Epoch, mk.CoordinatorEpoch, mk.Marker)
		b := w.trace.Begin(now)
		b = append(b, "b1 marker "...)
		b = append(b, mk.Marker.String()...)
		b = append(b, " p"...)
		b = strconv.AppendInt(b, int64(mk.Partition), 10)
		b = append(b, " pid="...)
		b = strconv.AppendInt(b, int64(mk.PID), 10)
		b = append(b, " e="...)
		b = strconv.AppendInt(b, int64(mk.Epoch), 10)
		b = append(b, " -> "...)
		b = append(b, r.Err.String()...)
		w.trace.Commit(b)
		if r.Err == model.ErrNone {
			w.chk.OnMarker(now, mk.Partition, mk.PID, mk.Marker)
		}
	}
	w.coord.MarkersWritten(now, txnID)
}

// txnTimeouts runs the coordinator's abort of timed-out transactions
// (transaction.abort.timed.out.transaction.cleanup.interval.ms) lazily, for
// the latest check boundary passed, before a server handles a request: as
// with producer expiry, only requests observe the outcome.
func (w *World) txnTimeouts(now sim.Time) {
	every := sim.Time(w.vals.Millis("transaction.abort.timed.out.transaction.cleanup.interval.ms"))
	if every <= 0 {
		return
	}
	at := now / every * every
	if at <= w.lastTxnCheck {
		return
	}
	w.lastTxnCheck = at
	mk := w.coord.AbortTimedOutTransactions(at)
	if len(mk) == 0 {
		return
	}
	w.line(now, "c1", "aborts timed-out transactions (check at "+at.String()+")")
	byID := map[string][]model.TxnMarker{}
	var ids []string
	for _, m := range mk {
		if _, ok := byID[m.TransactionalID]; !ok {
			ids = append(ids, m.TransactionalID)
		}
		byID[m.TransactionalID] = append(byID[m.TransactionalID], m)
	}
	for _, id := range ids { // in the coordinator's (sorted) order
		w.writeMarkers(now, id, byID[id])
	}
}

// verification answers KIP-890 part 1 partition verification for a
// transactional batch whose producer has no open transaction on the
// partition (semantics B4.0); ErrNone otherwise.
func (w *World) verification(p *model.Partition, txnID string, b *model.Batch) model.ErrCode {
	if !b.Transactional || p.Config().NoPartitionVerification {
		return model.ErrNone
	}
	if e := p.Producer(b.PID); e != nil && e.TxnFirstOffset >= 0 {
		return model.ErrNone
	}
	return w.coord.VerifyPartition(txnID, b.PID, b.Epoch, b.Partition)
}
