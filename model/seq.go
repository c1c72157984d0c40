package model

// Kafka's sentinel values (RecordBatch.NO_PRODUCER_ID and friends).
const (
	// NoProducerID marks a batch written without idempotence.
	NoProducerID ProducerID = -1
	// NoEpoch is the epoch of a batch without idempotence, and of a
	// broker-side producer entry created empty.
	NoEpoch int16 = -1
	// NoSequence is the base sequence of a batch without idempotence.
	NoSequence int32 = -1
)

// ProducerID is Kafka's producer id (PID), a non-negative int64 once
// assigned.
type ProducerID int64

// SeqSpace is the sequence-number space shared by a producer and the brokers
// it writes to. Kafka's is 31 bits: sequences run 0..2147483647 and the
// successor of 2147483647 is 0 (DefaultRecordBatch.incrementSequence). A
// narrower space is a what-if knob that makes wrap-around reachable in short
// runs.
type SeqSpace struct {
	// Bits is the width of the sequence space, 1..31; 0 means Kafka's 31.
	Bits uint8
}

// Max returns the largest sequence number, 2^Bits-1.
func (s SeqSpace) Max() int32 {
	b := s.Bits
	if b == 0 || b > 31 {
		b = 31
	}
	return int32(uint32(1)<<b - 1)
}

// Add returns seq+n wrapped into the space. n may be negative.
func (s SeqSpace) Add(seq int32, n int64) int32 {
	m := int64(s.Max()) + 1
	v := (int64(seq) + n) % m
	if v < 0 {
		v += m
	}
	return int32(v)
}

// Count returns the number of records in a batch spanning first..last,
// counting across the wrap: ((last-first) mod 2^Bits) + 1.
func (s SeqSpace) Count(first, last int32) int64 {
	m := int64(s.Max()) + 1
	d := (int64(last) - int64(first)) % m
	if d < 0 {
		d += m
	}
	return d + 1
}

// Next reports whether first directly follows last: first == last+1, or
// last is Max and first is 0 (ProducerAppendInfo.inSequence).
func (s SeqSpace) Next(last, first int32) bool {
	if last == s.Max() {
		return first == 0
	}
	return int64(first) == int64(last)+1
}

// JavaInt returns v as the Java client's int arithmetic leaves it: wrapped
// into the two's-complement integer one bit wider than the space, which
// for Kafka's 31-bit space is Java's int, -2^31..2^31-1. The Java client
// computes a batch's last sequence (ProducerBatch.lastSequence: baseSequence
// + recordCount - 1), compares sequences (TxnPartitionEntry
// .maybeUpdateLastAckedSequence, the in-flight batches' TreeSet) and tests
// for the next one (TransactionManager.isNextSequence: sequence -
// lastAckedSequence == 1) in plain int, not modulo the space; only
// nextSequence wraps (DefaultRecordBatch.incrementSequence). A narrower
// space (a what-if) keeps the same shape: one bit wider, so its maximum
// plus one is the most negative value.
func (s SeqSpace) JavaInt(v int64) int32 {
	m := int64(s.Max()) + 1
	v = (v + m) % (2 * m)
	if v < 0 {
		v += 2 * m
	}
	return int32(v - m)
}
