package model

import (
	"fmt"
	"slices"

	"github.com/idemsim/idemsim/sim"
)

// Invariant names, as in bug-zoo §0.4.
const (
	InvDup   = "INV-DUP"
	InvLoss  = "INV-LOSS"
	InvOrder = "INV-ORDER"
	InvSeq   = "INV-SEQ"
	InvDedup = "INV-DEDUP"
	InvFence = "INV-FENCE"
	InvState = "INV-STATE"
	InvEpoch = "INV-EPOCH"
	LiveProd = "LIVE-PROD"
)

// Violation is one broken invariant, with the records or batches involved.
type Violation struct {
	Invariant string   `json:"invariant"`
	Detail    string   `json:"detail"`
	At        sim.Time `json:"at_ns"`
}

// Counts are a run's tallies as the checker sees them.
type Counts struct {
	// Sent is the number of records the application sent.
	Sent int64 `json:"sent"`
	// Acked is the number of records acknowledged to the application.
	Acked int64 `json:"acked"`
	// Failed is the number of records reported failed.
	Failed int64 `json:"failed"`
	// Pending is the number of records with no outcome at the end.
	Pending int64 `json:"pending"`
	// Appended is the number of data records in the logs, copies included.
	Appended int64 `json:"appended"`
	// Duplicates counts extra copies: a record k times in the logs adds k-1.
	Duplicates int64 `json:"duplicates"`
	// Reordered counts records that reached their partition's log after a
	// record the same application sent later.
	Reordered int64 `json:"reordered"`
	// LostAcked counts acknowledged records missing from the logs.
	LostAcked int64 `json:"lost_acked"`
	// Aborted counts records of aborted transactions (read_committed
	// consumers skip them); records of transactions still open at the end
	// are neither appended nor aborted.
	Aborted int64 `json:"aborted"`
}

// Checker watches a run and judges it against the safety and liveness
// invariants. It is fed as the run goes (outcomes, appends), so its cost is
// linear in the run's length, and judged once at the end.
type Checker struct {
	cfg      CheckerConfig
	counts   Counts
	outcomes map[RecordID]Outcome
	// copies counts each record's appearances in the logs.
	copies map[RecordID]int32
	// maxN is, per (app, partition), the largest message number appended.
	maxN       map[[2]int64]int64
	reorders   []Violation
	violations []Violation
	// pendingTxn holds, per (pid, partition), transactional batches whose
	// transaction has not ended yet.
	pendingTxn map[[2]int64][]*LogEntry
	// seqs tracks, per (pid, partition), the last appended batch's epoch
	// and last sequence, for INV-SEQ.
	seqs map[[2]int64]seqState
	// fencedBelow is, per pid, the highest epoch the coordinator handed
	// out (INV-FENCE: nothing below it may be appended afterwards).
	fencedBelow map[ProducerID]int16
	// lastEpoch is, per pid, the last epoch the coordinator handed out
	// (INV-EPOCH: epochs never decrease for a pid).
	lastEpoch map[ProducerID]int16
	// shape holds the log-shape violations (INV-SEQ, INV-FENCE,
	// INV-EPOCH, INV-DEDUP, INV-STATE) found as the run went.
	shape []Violation
}

type seqState struct {
	epoch   int16
	lastSeq int32
}

// CheckerConfig tells the checker the run's sequence space and epoch range.
type CheckerConfig struct {
	Seq SeqSpace
	// MaxEpoch is the largest valid producer epoch (Kafka: 32767).
	MaxEpoch int16
}

// NewChecker returns an empty checker for Kafka's sequence and epoch
// ranges.
func NewChecker() *Checker { return NewCheckerWith(CheckerConfig{MaxEpoch: 32767}) }

// NewCheckerWith returns an empty checker for the given ranges.
func NewCheckerWith(cfg CheckerConfig) *Checker {
	return &Checker{cfg: cfg, outcomes: make(map[RecordID]Outcome), copies: make(map[RecordID]int32), maxN: make(map[[2]int64]int64),
		seqs: make(map[[2]int64]seqState), fencedBelow: make(map[ProducerID]int16), lastEpoch: make(map[ProducerID]int16)}
}

// maxShape bounds the log-shape violations kept per run; the rest are
// counted in one closing line.
const maxShape = 24

func (c *Checker) shapeViolation(v Violation) {
	c.shape = append(c.shape, v)
}

// OnEpochAssigned records that the coordinator handed pid the given epoch
// (InitProducerId). INV-EPOCH: the epoch is within 0..MaxEpoch and never
// lower than one handed out before for the same pid. INV-FENCE: from now
// on no data batch of pid with a lower epoch may be appended.
func (c *Checker) OnEpochAssigned(now sim.Time, pid ProducerID, epoch int16) {
	if epoch < 0 || epoch > c.cfg.MaxEpoch {
		c.shapeViolation(Violation{Invariant: InvEpoch, At: now, Detail: fmt.Sprintf("pid %d given epoch %d outside 0..%d", pid, epoch, c.cfg.MaxEpoch)})
	}
	if last, ok := c.lastEpoch[pid]; ok && epoch < last {
		c.shapeViolation(Violation{Invariant: InvEpoch, At: now, Detail: fmt.Sprintf("pid %d epoch went from %d down to %d", pid, last, epoch)})
	}
	c.lastEpoch[pid] = epoch
	if epoch > c.fencedBelow[pid] {
		c.fencedBelow[pid] = epoch
	}
}

// OnDuplicate records a batch the broker answered as a duplicate of the
// log entry orig. INV-DEDUP: the stored batch must carry the same records
// with the same payload digests; otherwise the broker acknowledged new
// data without writing it.
func (c *Checker) OnDuplicate(now sim.Time, b *Batch, orig *LogEntry) {
	same := orig != nil && len(orig.Batch.Records) == len(b.Records)
	for i := 0; same && i < len(b.Records); i++ {
		same = b.Records[i].ID == orig.Batch.Records[i].ID && b.Records[i].Digest == orig.Batch.Records[i].Digest
	}
	if !same {
		d := fmt.Sprintf("%s answered as a duplicate of ", batchTag(b))
		if orig == nil {
			d += "nothing in the log"
		} else {
			d += fmt.Sprintf("offset %d, which holds %s", orig.FirstOffset, batchTag(&orig.Batch))
		}
		c.shapeViolation(Violation{Invariant: InvDedup, At: now, Detail: d})
	}
}

// OnStateCheck records the outcome of comparing a restarted broker's
// producer state with a replay of its log (INV-STATE); diff is empty when
// they agree.
func (c *Checker) OnStateCheck(now sim.Time, partition int32, diff string) {
	if diff != "" {
		c.shapeViolation(Violation{Invariant: InvState, At: now, Detail: fmt.Sprintf("p%d after restart: %s", partition, diff)})
	}
}

// checkShape applies INV-SEQ, INV-FENCE and INV-EPOCH to an appended data
// batch.
func (c *Checker) checkShape(now sim.Time, e *LogEntry) {
	b := &e.Batch
	if !b.Idempotent() {
		return
	}
	if b.Epoch < 0 || b.Epoch > c.cfg.MaxEpoch {
		c.shapeViolation(Violation{Invariant: InvEpoch, At: now, Detail: fmt.Sprintf("%s appended at offset %d with epoch outside 0..%d", batchTag(b), e.FirstOffset, c.cfg.MaxEpoch)})
	}
	if f, ok := c.fencedBelow[b.PID]; ok && b.Epoch < f {
		c.shapeViolation(Violation{Invariant: InvFence, At: now, Detail: fmt.Sprintf("%s appended at offset %d after the coordinator moved pid %d to epoch %d", batchTag(b), e.FirstOffset, b.PID, f)})
	}
	k := [2]int64{int64(b.PID), int64(b.Partition)}
	st, seen := c.seqs[k]
	switch {
	case !seen || b.Epoch > st.epoch:
		if b.FirstSeq != 0 {
			what := "first batch of the pid on the partition"
			if seen {
				what = "first batch of epoch " + itoa(int64(b.Epoch))
			}
			c.shapeViolation(Violation{Invariant: InvSeq, At: now, Detail: fmt.Sprintf("%s at offset %d does not start at sequence 0 (%s)", batchTag(b), e.FirstOffset, what)})
		}
	case b.Epoch < st.epoch:
		c.shapeViolation(Violation{Invariant: InvSeq, At: now, Detail: fmt.Sprintf("%s at offset %d: epoch went down from %d", batchTag(b), e.FirstOffset, st.epoch)})
	default:
		if !c.cfg.Seq.Next(st.lastSeq, b.FirstSeq) {
			c.shapeViolation(Violation{Invariant: InvSeq, At: now, Detail: fmt.Sprintf("%s at offset %d does not follow sequence %d", batchTag(b), e.FirstOffset, st.lastSeq)})
		}
	}
	if !seen || b.Epoch >= st.epoch {
		c.seqs[k] = seqState{epoch: b.Epoch, lastSeq: b.LastSeq}
	}
}

// OnSend records that the application sent a record.
func (c *Checker) OnSend() { c.counts.Sent++ }

// OnOutcome records what the application learned about a record. A record
// sent through several producer instances (a takeover, a restart that
// resends) can have several outcomes: it counts as acknowledged if any
// instance acknowledged it, else as failed.
func (c *Checker) OnOutcome(o Outcome) {
	prev, ok := c.outcomes[o.ID]
	switch {
	case !ok:
		c.outcomes[o.ID] = o
		if o.Err == ErrNone {
			c.counts.Acked++
		} else {
			c.counts.Failed++
		}
	case prev.Err != ErrNone && o.Err == ErrNone:
		c.outcomes[o.ID] = o
		c.counts.Failed--
		c.counts.Acked++
	}
}

// OnAppend records a data batch appended to a partition log.
func (c *Checker) OnAppend(now sim.Time, e *LogEntry) {
	c.checkShape(now, e)
	if e.Batch.Transactional {
		// read_committed: a transactional batch counts once its
		// transaction commits on this partition ([Checker.OnMarker]).
		k := [2]int64{int64(e.Batch.PID), int64(e.Batch.Partition)}
		if c.pendingTxn == nil {
			c.pendingTxn = make(map[[2]int64][]*LogEntry)
		}
		c.pendingTxn[k] = append(c.pendingTxn[k], e)
		return
	}
	c.committed(now, e)
}

// OnMarker records a transaction marker written to partition for pid: a
// COMMIT makes the pid's pending transactional batches there count as
// appended (read_committed), an ABORT discards them.
func (c *Checker) OnMarker(now sim.Time, partition int32, pid ProducerID, m MarkerType) {
	k := [2]int64{int64(pid), int64(partition)}
	pend := c.pendingTxn[k]
	delete(c.pendingTxn, k)
	for _, e := range pend {
		if m == MarkerCommit {
			c.committed(now, e)
		} else {
			c.counts.Aborted += int64(len(e.Batch.Records))
		}
	}
}

// committed counts a committed data batch's records.
func (c *Checker) committed(now sim.Time, e *LogEntry) {
	for _, r := range e.Batch.Records {
		c.counts.Appended++
		c.copies[r.ID]++
		if c.copies[r.ID] > 1 {
			c.counts.Duplicates++
			continue
		}
		k := [2]int64{int64(r.ID.App), int64(r.Partition)}
		if m, ok := c.maxN[k]; ok && r.ID.N < m {
			c.counts.Reordered++
			if len(c.reorders) < 8 {
				c.reorders = append(c.reorders, Violation{Invariant: InvOrder, At: now,
					Detail: fmt.Sprintf("%v appended at p%d offset %d after %v (%s)", r.ID, r.Partition, e.FirstOffset, RecordID{App: r.ID.App, N: m}, batchTag(&e.Batch))})
			}
		} else {
			c.maxN[k] = r.ID.N
		}
	}
}

func batchTag(b *Batch) string { return string(b.AppendDescription(nil)) }

// Finish judges the run: logs are the final partition logs; pending is the
// number of records still unresolved when the run ended; end is the end time.
func (c *Checker) Finish(end sim.Time, logs [][]LogEntry, pending int64) (Counts, []Violation) {
	c.counts.Pending = pending
	var v []Violation
	// INV-DUP: each record at most once. Report in log order.
	seen := make(map[RecordID]bool)
	nd := 0
	for pi, log := range logs {
		committed := committedEntries(log)
		for i := range log {
			e := &log[i]
			if !committed[i] {
				continue
			}
			for j, r := range e.Batch.Records {
				if c.copies[r.ID] > 1 && seen[r.ID] {
					if nd < 8 {
						v = append(v, Violation{Invariant: InvDup, At: e.AppendedAt,
							Detail: fmt.Sprintf("%v again at p%d offset %d (%s)", r.ID, pi, e.FirstOffset+int64(j), batchTag(&e.Batch))})
					}
					nd++
				}
				seen[r.ID] = true
			}
		}
	}
	if nd > 8 {
		v = append(v, Violation{Invariant: InvDup, At: end, Detail: fmt.Sprintf("... and %d more duplicate copies", nd-8)})
	}
	for i, sv := range c.shape {
		if i == maxShape {
			v = append(v, Violation{Invariant: sv.Invariant, At: end, Detail: fmt.Sprintf("... and %d more log-shape violations", len(c.shape)-maxShape)})
			break
		}
		v = append(v, sv)
	}
	v = append(v, c.reorders...)
	if c.counts.Reordered > int64(len(c.reorders)) {
		v = append(v, Violation{Invariant: InvOrder, At: end, Detail: fmt.Sprintf("... %d reordered records in all", c.counts.Reordered)})
	}
	// INV-LOSS: every acknowledged record is in the log.
	ids := make([]RecordID, 0, len(c.outcomes))
	for id, o := range c.outcomes {
		if o.Err == ErrNone && c.copies[id] == 0 {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b RecordID) int {
		if a.App != b.App {
			return int(a.App - b.App)
		}
		return int(a.N - b.N)
	})
	c.counts.LostAcked = int64(len(ids))
	for i, id := range ids {
		if i == 8 {
			v = append(v, Violation{Invariant: InvLoss, At: end, Detail: fmt.Sprintf("... and %d more", len(ids)-8)})
			break
		}
		o := c.outcomes[id]
		v = append(v, Violation{Invariant: InvLoss, At: o.At, Detail: fmt.Sprintf("%v acknowledged at offset %d of p%d but not in the log", id, o.Offset, o.Partition)})
	}
	v = append(v, checkAckedOffsets(c.outcomes, logs)...)
	// LIVE-PROD: every record resolved.
	if pending > 0 {
		v = append(v, Violation{Invariant: LiveProd, At: end, Detail: fmt.Sprintf("%d records still unresolved at the end of the run", pending)})
	}
	c.violations = append(c.violations, v...)
	return c.counts, v
}

// checkAckedOffsets is INV-DEDUP seen from the application: a record
// acknowledged with an offset must be at that offset, with its own id and
// payload digest. A broker that answered "duplicate" for a batch whose
// sequence range collided with different data (bug-zoo Z11) fails it.
func checkAckedOffsets(outcomes map[RecordID]Outcome, logs [][]LogEntry) []Violation {
	var bad []Outcome
	for _, o := range outcomes {
		if o.Err != ErrNone || o.Offset < 0 || int(o.Partition) >= len(logs) {
			continue
		}
		log := logs[o.Partition]
		i, _ := slices.BinarySearchFunc(log, o.Offset, func(e LogEntry, off int64) int {
			switch {
			case e.LastOffset < off:
				return -1
			case e.FirstOffset > off:
				return 1
			}
			return 0
		})
		if i < len(log) && log[i].FirstOffset <= o.Offset && o.Offset <= log[i].LastOffset && log[i].Marker == MarkerNone {
			r := log[i].Batch.Records[o.Offset-log[i].FirstOffset]
			if r.ID == o.ID && r.Digest == o.Digest {
				continue
			}
		}
		bad = append(bad, o)
	}
	slices.SortFunc(bad, func(a, b Outcome) int {
		if a.ID.App != b.ID.App {
			return int(a.ID.App - b.ID.App)
		}
		return int(a.ID.N - b.ID.N)
	})
	var v []Violation
	for i, o := range bad {
		if i == 8 {
			v = append(v, Violation{Invariant: InvDedup, At: o.At, Detail: fmt.Sprintf("... and %d more", len(bad)-8)})
			break
		}
		v = append(v, Violation{Invariant: InvDedup, At: o.At, Detail: fmt.Sprintf("%v acknowledged at p%d offset %d, which holds other data", o.ID, o.Partition, o.Offset)})
	}
	return v
}

// committedEntries tells, per log entry, whether a read_committed consumer
// sees it: non-transactional data, and transactional data whose producer's
// next marker on the partition is a COMMIT. Markers themselves are not
// data.
func committedEntries(log []LogEntry) []bool {
	out := make([]bool, len(log))
	open := map[ProducerID][]int{}
	for i := range log {
		e := &log[i]
		switch {
		case e.Marker != MarkerNone:
			if e.Marker == MarkerCommit {
				for _, j := range open[e.Batch.PID] {
					out[j] = true
				}
			}
			delete(open, e.Batch.PID)
		case e.Batch.Transactional:
			open[e.Batch.PID] = append(open[e.Batch.PID], i)
		default:
			out[i] = true
		}
	}
	return out
}

// Invariants returns the names of every invariant the checker judges, in
// report order.
func Invariants() []string {
	return []string{InvDup, InvLoss, InvOrder, InvSeq, InvDedup, InvFence, InvState, InvEpoch, LiveProd}
}
