package check

import (
	"math/rand/v2"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// A synthetic observation stream, for the benchmark (bench_test.go) and
// the Reset tests (reset_test.go): three producer instances p1..p3 of two
// applications, a broker b1 and a coordinator c1, sending to three
// partitions. Each seed draws a different run: plain and idempotent
// appends with their sends and acknowledgements, duplicate copies and
// duplicate answers (some not matching), lost acknowledgements, epoch
// bumps (a few going down, a few fencing a late batch), broken sequences,
// transactions that commit, abort, tear or stay open, stale EndTxns,
// restarts, fatal notes, state checks and committed offsets. Every
// invariant breaks in some seed.

// Node ids of the synthetic world.
const (
	genInsts        = 3
	genBroker int32 = 3
	genCoord  int32 = 4
	genParts        = 3
)

// genConfig is the configuration the synthetic runs are judged with.
func genConfig() Config {
	return Config{Seq: model.SeqSpace{}, MaxEpoch: 5, Names: []string{"p1", "p2", "p3", "b1", "c1"}}
}

type streamGen struct {
	rng   *rand.Rand
	obs   []model.Obs
	at    sim.Time
	next  [genParts]int64 // next offset per partition
	n     [2]int64        // next message number per application
	req   int64           // request numbers on the wire
	epoch [genInsts]int16
	ord   [genInsts]int32
	seq   map[[2]int64]int32
	// past holds appended batches, for duplicates.
	past   []model.LogEntry
	faults bool
	// final: observe the final logs (a replicated run), kept in logs.
	final bool
	logs  [genParts][]model.LogEntry
}

// fault reports, one time in n, whether to break an invariant (never
// without faults).
func (g *streamGen) fault(n int) bool { return g.faults && g.rng.IntN(n) == 0 }

// genStream returns the observations of one synthetic run of about steps
// actions, ending with its run end; with faults, a few of them break
// invariants.
func genStream(seed uint64, steps int, faults bool) []model.Obs {
	return newStreamGen(seed, faults).run(steps)
}

// genReplicated is genStream for a replicated run: its partitions' final
// logs are observed before its end.
func genReplicated(seed uint64, steps int, faults bool) []model.Obs {
	g := newStreamGen(seed, faults)
	g.final = true
	return g.run(steps)
}

func newStreamGen(seed uint64, faults bool) *streamGen {
	return &streamGen{rng: rand.New(rand.NewPCG(seed, 7)), seq: map[[2]int64]int32{}, faults: faults}
}

func (g *streamGen) run(steps int) []model.Obs {
	for inst := range int32(genInsts) {
		g.emit(model.Obs{Kind: model.ObsStart, Node: inst, App: inst % 2})
		g.emit(model.Obs{Kind: model.ObsActive, Node: inst, App: inst % 2})
		g.emit(model.Obs{Kind: model.ObsEpoch, Node: genCoord, PID: pidOf(inst), Epoch: 0})
	}
	for range steps {
		g.at += sim.Time(1 + g.rng.IntN(5_000_000))
		switch x := g.rng.IntN(100); {
		case x < 45:
			g.produce()
		case x < 55:
			g.duplicate()
		case x < 75:
			g.transaction()
		case x < 80:
			g.bump()
		case x < 83:
			g.restart()
		case x < 85 && g.faults:
			g.emit(model.Obs{Kind: model.ObsStateCheck, Partition: int32(g.rng.IntN(genParts)), Text: pick(g.rng, "", "", "", "pid 1000: seq 4 != 5")})
		case x < 87 && g.faults:
			inst := int32(g.rng.IntN(genInsts))
			g.emit(model.Obs{Kind: model.ObsNote, Node: inst, NoteKind: model.NoteFatal, Err: model.ErrProducerFenced})
		case x < 90 && g.faults:
			app := int32(g.rng.IntN(2))
			g.emit(model.Obs{Kind: model.ObsOffsets, Text: "offsets committed", Group: model.GroupOf(app), N: g.rng.Int64N(g.n[app] + 1)})
		default:
			// Traffic no invariant reads.
			g.emit(model.Obs{Kind: model.ObsDelivered, Node: genBroker, Peer: int32(g.rng.IntN(genInsts)), MsgID: uint64(g.req)})
		}
	}
	if g.final {
		for p := range g.logs {
			g.emit(model.Obs{Kind: model.ObsFinalLog, Partition: int32(p), Log: g.logs[p]})
		}
	}
	stop := "drained"
	if g.fault(3) {
		stop = "event-limit"
	}
	g.emit(model.Obs{Kind: model.ObsRunEnd, N: int64(boolInt(g.fault(2))), Abandoned: int64(boolInt(g.fault(2))), Text: stop, Until: g.at})
	return g.obs
}

func pidOf(inst int32) model.ProducerID { return model.ProducerID(1000 + inst) }

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

func (g *streamGen) emit(o model.Obs) {
	o.At = g.at
	g.obs = append(g.obs, o)
}

// records returns k new records of app on partition p, each sent.
func (g *streamGen) records(app, p int32, k int) []model.Record {
	rs := make([]model.Record, k)
	for i := range rs {
		id := model.RecordID{App: app, N: g.n[app]}
		g.n[app]++
		rs[i] = model.Record{ID: id, Partition: p, Digest: model.Digest(id, 0)}
		g.emit(model.Obs{Kind: model.ObsAppSend, Node: -1, App: app})
	}
	return rs
}

// batch builds a batch of inst's records on p: idempotent or not,
// transactional for ordinal txn > 0.
func (g *streamGen) batch(inst, p int32, rs []model.Record, idem bool, txn int32) model.Batch {
	b := model.Batch{Partition: p, PID: model.NoProducerID, Epoch: -1, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Records: rs}
	if idem || txn > 0 {
		k := [2]int64{int64(pidOf(inst)), int64(p)}
		first := g.seq[k]
		if g.fault(40) {
			first += 3 // a gap: INV-SEQ
		}
		g.seq[k] = first + int32(len(rs))
		b.PID, b.Epoch, b.FirstSeq, b.LastSeq = pidOf(inst), g.epoch[inst], first, first+int32(len(rs))-1
		if b.Epoch > 0 && g.fault(30) {
			b.Epoch-- // a late batch of a fenced epoch: INV-FENCE
		}
	}
	if txn > 0 {
		b.Transactional, b.Txn = true, txn
	}
	return b
}

// send puts a produce request of inst on the wire and returns its number.
func (g *streamGen) send(inst int32) int64 {
	g.req++
	g.emit(model.Obs{Kind: model.ObsSent, Node: inst, Peer: genBroker, N: g.req, Msg: &model.ProduceRequest{}})
	return g.req
}

// appendBatch observes b from inst appended at its partition's next
// offset and returns its first offset.
func (g *streamGen) appendBatch(inst int32, req int64, b model.Batch) int64 {
	first := g.next[b.Partition]
	g.next[b.Partition] += int64(len(b.Records))
	res := model.AppendResult{FirstOffset: first, LastOffset: first + int64(len(b.Records)) - 1}
	g.emit(model.Obs{Kind: model.ObsVerdict, Node: genBroker, Peer: inst, N: req, Batch: b, Result: res})
	g.past = append(g.past, model.LogEntry{FirstOffset: res.FirstOffset, LastOffset: res.LastOffset, Batch: b, AppendedAt: g.at, CoordinatorEpoch: -1})
	g.logs[b.Partition] = append(g.logs[b.Partition], g.past[len(g.past)-1])
	return first
}

// ack observes the outcome of each record of b appended at first.
func (g *streamGen) ack(b model.Batch, first int64, txn bool) {
	for i, r := range b.Records {
		out := model.Outcome{ID: r.ID, Partition: b.Partition, Offset: first + int64(i), At: g.at, Digest: r.Digest, Txn: txn}
		switch {
		case g.rng.IntN(30) == 0:
			out.Err, out.Offset = model.ErrRequestTimedOut, -1
		case g.fault(30):
			out.Offset++ // acknowledged at the wrong offset: INV-DEDUP
		}
		g.emit(model.Obs{Kind: model.ObsOutcome, Outcome: out})
	}
}

func (g *streamGen) produce() {
	inst := int32(g.rng.IntN(genInsts))
	app, p := inst%2, int32(g.rng.IntN(genParts))
	rs := g.records(app, p, 1+g.rng.IntN(3))
	b := g.batch(inst, p, rs, g.rng.IntN(3) > 0, 0)
	req := g.send(inst)
	if g.fault(25) {
		// Lost on the way, but acknowledged: INV-LOSS.
		g.ack(b, g.next[p], false)
		return
	}
	if g.rng.IntN(20) == 0 {
		// Refused, and failed to the application.
		g.emit(model.Obs{Kind: model.ObsVerdict, Node: genBroker, Peer: inst, N: req, Batch: b,
			Result: model.AppendResult{Err: model.ErrOutOfOrderSequenceNumber, FirstOffset: -1, LastOffset: -1}})
		if b.PID != model.NoProducerID {
			g.seq[[2]int64{int64(b.PID), int64(p)}] = b.FirstSeq
		}
		for _, r := range rs {
			g.emit(model.Obs{Kind: model.ObsOutcome, Outcome: model.Outcome{ID: r.ID, Partition: p, Err: model.ErrOutOfOrderSequenceNumber, Offset: -1, At: g.at, Digest: r.Digest}})
		}
		return
	}
	first := g.appendBatch(inst, req, b)
	if g.fault(15) {
		// Reordered: a later record first.
		rs2 := g.records(app, p, 1)
		rs2[0].ID.N -= 3
		g.appendBatch(inst, g.send(inst), g.batch(inst, p, rs2, false, 0))
	}
	g.ack(b, first, false)
}

func (g *streamGen) duplicate() {
	if len(g.past) == 0 {
		return
	}
	e := g.past[g.rng.IntN(len(g.past))]
	inst := int32(g.rng.IntN(genInsts))
	req := g.send(inst)
	switch {
	case g.fault(3):
		// Appended again: an extra copy (INV-DUP) unless its
		// transaction aborts.
		g.appendBatch(inst, req, e.Batch)
	default:
		// Answered as a duplicate; sometimes of the wrong entry.
		orig := e
		if g.fault(5) {
			orig = g.past[g.rng.IntN(len(g.past))]
		}
		g.emit(model.Obs{Kind: model.ObsVerdict, Node: genBroker, Peer: inst, N: req, Batch: e.Batch, Orig: orig, OrigFound: !g.fault(8),
			Result: model.AppendResult{FirstOffset: orig.FirstOffset, LastOffset: orig.LastOffset, Duplicate: true}})
	}
}

func (g *streamGen) transaction() {
	inst := int32(g.rng.IntN(genInsts))
	pid, app := pidOf(inst), inst%2
	tid := []string{"t1", "t2", "t3"}[inst]
	g.ord[inst]++
	ord := g.ord[inst]
	parts := []int32{int32(g.rng.IntN(genParts))}
	if q := int32(g.rng.IntN(genParts)); q > parts[0] {
		parts = append(parts, q)
	}
	g.emit(model.Obs{Kind: model.ObsTxnOp, Node: genCoord, Peer: inst, Msg: &model.AddPartitionsToTxnRequest{TransactionalID: tid, PID: pid, Epoch: g.epoch[inst], Partitions: parts, Txn: ord}})
	g.emit(model.Obs{Kind: model.ObsTxnState, Node: genCoord, Text: tid, PID: pid, Epoch: g.epoch[inst], N: int64(model.TxnOngoing), Parts: parts})
	var ids []model.RecordID
	for _, p := range parts {
		rs := g.records(app, p, 1+g.rng.IntN(3))
		b := g.batch(inst, p, rs, true, ord)
		first := g.appendBatch(inst, g.send(inst), b)
		g.ack(b, first, true)
		for _, r := range rs {
			ids = append(ids, r.ID)
		}
	}
	if g.fault(12) {
		return // left open: LIVE-LSO when the coordinator forgets it
	}
	commit := g.rng.IntN(3) > 0
	g.req++
	g.emit(model.Obs{Kind: model.ObsSent, Node: inst, Peer: genCoord, N: g.req, Msg: &model.EndTxnRequest{Commit: commit, Txn: ord}})
	g.emit(model.Obs{Kind: model.ObsTxnOp, Node: genCoord, Peer: inst, Msg: &model.EndTxnRequest{TransactionalID: tid, PID: pid, Epoch: g.epoch[inst], Commit: commit, Txn: ord - int32(boolInt(g.fault(6)))}})
	prep, done := model.TxnPrepareAbort, model.TxnCompleteAbort
	if commit {
		prep, done = model.TxnPrepareCommit, model.TxnCompleteCommit
	}
	g.emit(model.Obs{Kind: model.ObsTxnState, Node: genCoord, Text: tid, PID: pid, Epoch: g.epoch[inst], N: int64(prep), Parts: parts})
	for i, p := range parts {
		m := model.MarkerAbort
		if commit && (i == 0 || !g.fault(10)) { // sometimes torn
			m = model.MarkerCommit
		}
		off := g.next[p]
		g.next[p]++
		g.emit(model.Obs{Kind: model.ObsMarker, Node: genBroker, Partition: p, PID: pid, Epoch: g.epoch[inst], Marker: m,
			Result: model.AppendResult{FirstOffset: off, LastOffset: off}})
		g.logs[p] = append(g.logs[p], model.LogEntry{FirstOffset: off, LastOffset: off, Marker: m, AppendedAt: g.at, CoordinatorEpoch: 0,
			Batch: model.Batch{Partition: p, PID: pid, Epoch: g.epoch[inst], FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Transactional: true}})
	}
	g.emit(model.Obs{Kind: model.ObsTxnState, Node: genCoord, Text: tid, PID: pid, Epoch: g.epoch[inst], N: int64(done), Parts: parts})
	if g.fault(10) {
		// A late batch of the ended transaction: INV-FENCE.
		p := parts[0]
		g.appendBatch(inst, g.send(inst), g.batch(inst, p, g.records(app, p, 1), true, ord))
	}
	verb := "aborted"
	if commit {
		verb = "committed"
	} else if g.rng.IntN(4) == 0 {
		verb = "failed"
	}
	g.emit(model.Obs{Kind: model.ObsTxnOutcome, Node: inst, Txn: ord, Text: verb, Flag: verb == "committed", IDs: ids, N: int64(len(ids))})
}

func (g *streamGen) bump() {
	inst := int32(g.rng.IntN(genInsts))
	e := g.epoch[inst] + 1
	if g.fault(10) {
		e -= 2 // down: INV-EPOCH
	}
	if e > 5 {
		if !g.faults {
			return
		}
		e = 0 // beyond MaxEpoch, then down: INV-EPOCH
	}
	g.epoch[inst] = e
	for p := range int64(genParts) {
		g.seq[[2]int64{int64(pidOf(inst)), p}] = 0
	}
	g.emit(model.Obs{Kind: model.ObsEpoch, Node: genCoord, PID: pidOf(inst), Epoch: e})
}

func (g *streamGen) restart() {
	inst := int32(g.rng.IntN(genInsts))
	g.ord[inst] = 0
	g.emit(model.Obs{Kind: model.ObsRestart, Node: inst})
	g.emit(model.Obs{Kind: model.ObsStart, Node: inst, App: inst % 2})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
