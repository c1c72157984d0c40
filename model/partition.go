package model

import (
	"slices"
	"time"

	"github.com/idemsim/idemsim/sim"
)

// DefaultWindow is Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN: the
// number of batches per (producer id, partition) kept for duplicate
// detection.
const DefaultWindow = 5

// PartitionConfig holds a partition leader's settings. The zero value is
// Kafka's behaviour.
type PartitionConfig struct {
	// Window is the number of batch-metadata entries kept per producer,
	// 1..1000; 0 means Kafka's 5.
	Window int
	// NoDedup turns duplicate detection off entirely: a retry of an
	// appended batch is judged by the sequence check alone. Redpanda up to
	// 21.10 behaved this way (bug-zoo Z16). What-if knob.
	NoDedup bool
	// NoEpochCheck skips the "lower epoch" rejection (what-if knob).
	NoEpochCheck bool
	// Seq is the sequence-number space (Kafka: 31 bits).
	Seq SeqSpace
	// ProducerIDExpiration is producer.id.expiration.ms: producer state
	// idle this long is removed (never while a transaction is open).
	// Zero means Kafka's default, 86400000 ms (1 day).
	ProducerIDExpiration time.Duration
}

func (c PartitionConfig) window() int {
	if c.Window <= 0 {
		return DefaultWindow
	}
	return c.Window
}

// BatchMetadata is what the broker caches of an appended batch
// (storage/.../log/BatchMetadata.java), with first and last stored directly.
type BatchMetadata struct {
	FirstSeq, LastSeq       int32
	FirstOffset, LastOffset int64
	Timestamp               sim.Time
}

// ProducerStateEntry is the broker's state for one producer id on one
// partition (storage/.../log/ProducerStateEntry.java).
type ProducerStateEntry struct {
	// Epoch is the producer epoch; NoEpoch for an entry created empty.
	Epoch int16
	// CoordinatorEpoch is the epoch of the coordinator that wrote the last
	// marker; -1 until a marker is seen.
	CoordinatorEpoch int32
	// TxnFirstOffset is the first offset of the open transaction, or -1.
	TxnFirstOffset int64
	// LastTimestamp is the time of the last batch or marker. idemsim uses
	// the append time (as with LogAppendTime); Kafka uses the record
	// timestamp, which the Java client sets at send.
	LastTimestamp sim.Time
	// Batches holds the newest appended batches of the current epoch,
	// oldest first, at most the window size.
	Batches []BatchMetadata
}

// lastSeq returns the newest cached batch's last sequence, or -1.
func (e *ProducerStateEntry) lastSeq() int32 {
	if len(e.Batches) == 0 {
		return -1
	}
	return e.Batches[len(e.Batches)-1].LastSeq
}

// LogEntry is one batch in a partition's log: data, or a transaction marker.
type LogEntry struct {
	FirstOffset, LastOffset int64
	// Batch is the appended data batch (for a marker: its PID and Epoch).
	Batch Batch
	// Marker is MarkerNone for data, else the control record type.
	Marker MarkerType
	// AppendedAt is the simulated time of the append.
	AppendedAt sim.Time
}

// MarkerType is the control record of a transaction marker.
type MarkerType uint8

// Marker types.
const (
	MarkerNone MarkerType = iota
	MarkerCommit
	MarkerAbort
)

// String returns "COMMIT", "ABORT" or "".
func (m MarkerType) String() string {
	switch m {
	case MarkerCommit:
		return "COMMIT"
	case MarkerAbort:
		return "ABORT"
	}
	return ""
}

// AppendResult is the outcome of appending one batch.
type AppendResult struct {
	Err ErrCode
	// FirstOffset and LastOffset are the batch's offsets: new ones for an
	// append, the original ones for a duplicate, -1 on error.
	FirstOffset, LastOffset int64
	// Duplicate is true when the batch matched a cached batch and nothing
	// was appended.
	Duplicate bool
	// Reason is a short deterministic explanation for the trace, e.g.
	// "seq 7 after last 4".
	Reason string
}

// Partition is one partition leader's log and producer-state map
// (UnifiedLog plus ProducerStateManager). It is a pure state machine: no
// I/O, no randomness, no wall clock.
type Partition struct {
	ID  int32
	cfg PartitionConfig
	// log holds every appended batch and marker, in offset order.
	log []LogEntry
	// nextOffset is the log end offset.
	nextOffset int64
	// producers maps producer id to its state on this partition. Never
	// iterated in map order where the order could reach a trace.
	producers map[ProducerID]*ProducerStateEntry
}

// NewPartition returns an empty partition with the given settings.
func NewPartition(id int32, cfg PartitionConfig) *Partition {
	return &Partition{ID: id, cfg: cfg, producers: make(map[ProducerID]*ProducerStateEntry)}
}

// Config returns the partition's settings.
func (p *Partition) Config() PartitionConfig { return p.cfg }

// Log returns the partition's log. The caller must not modify it.
func (p *Partition) Log() []LogEntry { return p.log }

// LogEndOffset returns the next offset to be assigned.
func (p *Partition) LogEndOffset() int64 { return p.nextOffset }

// Producer returns the state entry for pid, or nil if the partition has
// none. The caller must not modify it.
func (p *Partition) Producer(pid ProducerID) *ProducerStateEntry { return p.producers[pid] }

// ProducerIDs returns the producer ids with state on this partition, in
// increasing order.
func (p *Partition) ProducerIDs() []ProducerID {
	ids := make([]ProducerID, 0, len(p.producers))
	for id := range p.producers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Append validates and appends a client's data batch, running Kafka's
// checks in order (semantics B4; UnifiedLog.analyzeAndValidateProducerState,
// ProducerAppendInfo.appendDataBatch). The first failing check decides;
// a failed batch changes nothing.
//
// Simplification: KIP-890 partition verification (B4.0, B4.3, B4.5) is
// not modelled on this path.
func (p *Partition) Append(now sim.Time, b Batch) AppendResult {
	n := int64(len(b.Records))
	if !b.Idempotent() {
		// No producer id: appended blindly, no producer state.
		return p.appendData(now, b, n)
	}
	// B4.1: record validation.
	if b.FirstSeq < 0 || b.LastSeq < 0 {
		return AppendResult{Err: ErrInvalidRecord, FirstOffset: -1, LastOffset: -1, Reason: "negative sequence"}
	}
	e := p.producers[b.PID]
	// B4.2: duplicate check, before the epoch and sequence checks.
	if e != nil && !p.cfg.NoDedup && e.Epoch == b.Epoch {
		for _, m := range e.Batches {
			if m.FirstSeq == b.FirstSeq && m.LastSeq == b.LastSeq {
				return AppendResult{Err: ErrNone, FirstOffset: m.FirstOffset, LastOffset: m.LastOffset, Duplicate: true, Reason: "duplicate of cached batch"}
			}
		}
	}
	epoch, last := NoEpoch, int32(-1)
	if e != nil {
		epoch, last = e.Epoch, e.lastSeq()
	}
	// B4.4: epoch check.
	if e != nil && b.Epoch < epoch && !p.cfg.NoEpochCheck {
		return AppendResult{Err: ErrInvalidProducerEpoch, FirstOffset: -1, LastOffset: -1, Reason: "epoch below current " + itoa(int64(epoch))}
	}
	// B4.6: sequence check.
	if b.Epoch != epoch {
		if b.FirstSeq != 0 && epoch != NoEpoch {
			return AppendResult{Err: ErrOutOfOrderSequenceNumber, FirstOffset: -1, LastOffset: -1, Reason: "new epoch must start at 0"}
		}
	} else if epoch != NoEpoch {
		if !p.cfg.Seq.Next(last, b.FirstSeq) && !(last == -1 && b.FirstSeq == 0) {
			return AppendResult{Err: ErrOutOfOrderSequenceNumber, FirstOffset: -1, LastOffset: -1,
				Reason: "seq " + itoa(int64(b.FirstSeq)) + " after last " + itoa(int64(last))}
		}
	}
	// B4.7: transaction-state check.
	if e != nil && e.TxnFirstOffset >= 0 && !b.Transactional {
		return AppendResult{Err: ErrInvalidTxnState, FirstOffset: -1, LastOffset: -1, Reason: "non-transactional write during open transaction"}
	}
	// B4.8: accept.
	r := p.appendData(now, b, n)
	if e == nil {
		e = &ProducerStateEntry{Epoch: b.Epoch, CoordinatorEpoch: -1, TxnFirstOffset: -1}
		p.producers[b.PID] = e
	}
	if e.Epoch != b.Epoch {
		e.Epoch = b.Epoch
		e.Batches = e.Batches[:0]
	}
	p.pushBatch(e, BatchMetadata{FirstSeq: b.FirstSeq, LastSeq: b.LastSeq, FirstOffset: r.FirstOffset, LastOffset: r.LastOffset, Timestamp: now})
	e.LastTimestamp = now
	if b.Transactional && e.TxnFirstOffset < 0 {
		e.TxnFirstOffset = r.FirstOffset
	}
	return r
}

// pushBatch adds m to e's window, dropping the oldest beyond the window.
func (p *Partition) pushBatch(e *ProducerStateEntry, m BatchMetadata) {
	if w := p.cfg.window(); len(e.Batches) >= w {
		copy(e.Batches, e.Batches[len(e.Batches)-w+1:])
		e.Batches = e.Batches[:w-1]
	}
	e.Batches = append(e.Batches, m)
}

// appendData assigns offsets to n records and appends b to the log.
func (p *Partition) appendData(now sim.Time, b Batch, n int64) AppendResult {
	if n <= 0 {
		panic("model: append of an empty batch")
	}
	first := p.nextOffset
	last := first + n - 1
	p.nextOffset += n
	p.log = append(p.log, LogEntry{FirstOffset: first, LastOffset: last, Batch: b, AppendedAt: now})
	return AppendResult{Err: ErrNone, FirstOffset: first, LastOffset: last}
}

func itoa(v int64) string {
	var buf [20]byte
	return string(appendInt(buf[:0], v))
}
