package model

import (
	"strconv"

	"github.com/idemsim/idemsim/sim"
)

// Batch is one record batch for one partition, as carried by a produce
// request (Kafka's message format v2: one batch per partition per request).
// Without idempotence PID is [NoProducerID], Epoch [NoEpoch] and the
// sequences [NoSequence]. The fields are ordered so that the struct has no
// padding (56 bytes): logs and observers keep one per appended batch.
type Batch struct {
	PID       ProducerID
	Partition int32
	// FirstSeq and LastSeq are the sequence range, wrapping in the
	// producer's [SeqSpace]: LastSeq = FirstSeq + len(Records) - 1.
	FirstSeq int32
	LastSeq  int32
	// Txn is simulation metadata, never on the wire: for a transactional
	// batch, the ordinal (1, 2, ...) of the sending producer instance's
	// transaction the batch was built for; 0 otherwise. Checkers use it to
	// tell which transaction a log entry belongs to, which Kafka's log
	// cannot tell apart under transaction version 1 (KAFKA-17754).
	Txn   int32
	Epoch int16
	// Transactional is the batch header's transactional bit.
	Transactional bool
	Records       []Record
}

// MaxTimestamp is the batch header's max timestamp: the largest
// CreateTime of its records (RecordBatch.maxTimestamp, which the client's
// MemoryRecordsBuilder keeps as it appends), 0 for an empty batch.
func (b *Batch) MaxTimestamp() sim.Time {
	var ts sim.Time
	for i, r := range b.Records {
		if i == 0 || r.CreateTime > ts {
			ts = r.CreateTime
		}
	}
	return ts
}

// Idempotent reports whether the batch carries a producer id.
func (b *Batch) Idempotent() bool { return b.PID != NoProducerID }

// AppendDescription appends "p0 pid=1000 e=0 seq=0..4 n=5".
func (b *Batch) AppendDescription(out []byte) []byte {
	out = append(out, 'p')
	out = strconv.AppendInt(out, int64(b.Partition), 10)
	if b.PID == NoProducerID {
		out = append(out, " pid=none"...)
	} else {
		out = append(out, " pid="...)
		out = strconv.AppendInt(out, int64(b.PID), 10)
		out = append(out, " e="...)
		out = strconv.AppendInt(out, int64(b.Epoch), 10)
		out = append(out, " seq="...)
		out = strconv.AppendInt(out, int64(b.FirstSeq), 10)
		out = append(out, ".."...)
		out = strconv.AppendInt(out, int64(b.LastSeq), 10)
	}
	if b.Transactional {
		out = append(out, " txn"...)
	}
	out = append(out, " n="...)
	out = strconv.AppendInt(out, int64(len(b.Records)), 10)
	if len(b.Records) > 0 {
		out = append(out, " ["...)
		out = b.Records[0].ID.AppendID(out)
		if len(b.Records) > 1 {
			out = append(out, ".."...)
			out = b.Records[len(b.Records)-1].ID.AppendID(out)
		}
		out = append(out, ']')
	}
	return out
}
