package scenarios

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// brokerSide is the state of the broker-side fault sources and periodic
// work the world adds around the pure partition model.
type brokerSide struct {
	rng *rand.Rand
	// transientPPM is broker.transient_error in parts per million.
	transientPPM uint32
	// notReady counts, per partition, the produce batches still to be
	// answered NOT_LEADER_OR_FOLLOWER (partition.not_ready.batches).
	notReady []int64
	// expiryEvery is producer.id.expiration.check.interval.ms;
	// lastExpiry the last check boundary that ran.
	expiryEvery time.Duration
	lastExpiry  sim.Time
}

func (w *World) initBrokerSide() {
	parts := len(w.broker.Partitions())
	w.bs = brokerSide{
		rng:          w.rngFor("broker/b1"),
		transientPPM: uint32(w.vals.Float("broker.transient_error")*1_000_000 + 0.5),
		notReady:     make([]int64, parts),
		expiryEvery:  w.vals.Millis("producer.id.expiration.check.interval.ms"),
	}
	for i := range w.bs.notReady {
		w.bs.notReady[i] = w.vals.Int("partition.not_ready.batches")
	}
}

// produce handles a produce request's batches one partition at a time: a
// partition that is not ready yet answers NOT_LEADER_OR_FOLLOWER, a
// transient replication failure answers NOT_ENOUGH_REPLICAS (both
// retriable, nothing appended), and otherwise the partition runs Kafka's
// append checks. It returns the response (nil for acks=0) and the results.
func (w *World) produce(now sim.Time, req *model.ProduceRequest) (*model.ProduceResponse, []model.AppendResult) {
	results := make([]model.AppendResult, len(req.Batches))
	resp := &model.ProduceResponse{CorrelationID: req.CorrelationID, Partitions: make([]model.PartitionResponse, len(req.Batches))}
	for i := range req.Batches {
		bt := &req.Batches[i]
		p := w.broker.Partition(bt.Partition)
		var r model.AppendResult
		switch {
		case p == nil:
			r = model.AppendResult{Err: model.ErrNotLeaderOrFollower, FirstOffset: -1, LastOffset: -1, Reason: "no such partition"}
		case w.bs.notReady[bt.Partition] > 0:
			w.bs.notReady[bt.Partition]--
			r = model.AppendResult{Err: model.ErrNotLeaderOrFollower, FirstOffset: -1, LastOffset: -1, Reason: "partition not ready"}
		case w.transient(bt.Partition, &r):
			// A planned reject or a broker.transient_error draw (realize.go).
		default:
			r = p.AppendWith(now, *bt, model.AppendOptions{Verification: w.verification(p, req.TransactionalID, bt)})
		}
		results[i] = r
		resp.Partitions[i] = model.PartitionResponse{Partition: bt.Partition, Err: r.Err, BaseOffset: r.FirstOffset}
	}
	if req.Acks == 0 {
		return nil, results
	}
	return resp, results
}

// expireCheck runs the broker's periodic producer-state expiry
// (ProducerStateManager.removeExpiredProducers, every
// producer.id.expiration.check.interval.ms). idemsim runs the checks lazily,
// when a request arrives, for the latest boundary passed: the state only
// matters to requests, so the outcome is the same as checking on a timer,
// and an idle run still drains.
func (w *World) expireCheck(now sim.Time) {
	if w.bs.expiryEvery <= 0 {
		return
	}
	every := sim.Time(w.bs.expiryEvery)
	at := now / every * every
	if at <= w.bs.lastExpiry {
		return
	}
	w.bs.lastExpiry = at
	for _, p := range w.broker.Partitions() {
		for _, pid := range p.ExpireProducers(at) {
			b := w.trace.Begin(now)
			b = append(b, "b1 expire p"...)
			b = strconv.AppendInt(b, int64(p.ID), 10)
			b = append(b, " pid="...)
			b = strconv.AppendInt(b, int64(pid), 10)
			b = append(b, " (idle >= producer.id.expiration.ms at check "...)
			b = at.AppendTo(b)
			b = append(b, ')')
			w.trace.Commit(b)
		}
	}
}

// takeover starts a later instance of an application: it takes over the
// app's stream of sends and, with app.takeover.resend, sends again the
// records its older instances have not resolved (an at-least-once
// application failing over to a new process).
func (w *World) takeover(now sim.Time, in *instance) {
	a := in.app
	a.chain++
	w.line(now, in.name, "takes over app "+strconv.Itoa(int(a.id)))
	if w.vals.Bool("app.takeover.resend") {
		var recs []model.Record
		for _, old := range a.instances[:in.index] {
			for _, r := range old.unresolved {
				recs = append(recs, r)
			}
		}
		sortRecords(recs)
		for _, rec := range recs {
			if _, dup := in.unresolved[rec.ID.N]; dup {
				continue
			}
			in.unresolved[rec.ID.N] = rec
			b := w.trace.Begin(now)
			b = append(b, in.name...)
			b = append(b, " app-resend "...)
			b = rec.ID.AppendID(b)
			w.trace.Commit(b)
			w.apply(now, in, in.prod.Send(now, rec))
		}
	}
	if a.next < a.records {
		w.loop.At(now, Event{kind: evAppSend, app: a.id, n: a.chain})
	}
}

func sortRecords(recs []model.Record) {
	for i := 1; i < len(recs); i++ {
		for j := i; j > 0 && recs[j].ID.N < recs[j-1].ID.N; j-- {
			recs[j], recs[j-1] = recs[j-1], recs[j]
		}
	}
}
