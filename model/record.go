package model

import (
	"strconv"

	"github.com/idemsim/idemsim/sim"
)

// RecordID identifies one application record: the application-level
// producer (App, stable across producer instances and restarts) and its
// message number N, which increases by one for every record that
// application sends. Checkers use it to tell true duplicates apart.
type RecordID struct {
	App int32
	N   int64
}

// Record is one application record as it travels in a batch.
type Record struct {
	ID RecordID
	// Digest is a hash of the payload. A sequence-number collision carries
	// the digest of a different record, so the INV-DEDUP checker can tell
	// it from a true retry.
	Digest uint64
	// Partition is the partition the application sent the record to.
	Partition int32
	// Resend tells the application's hand-overs of one record apart: 0
	// the first time the application hands the record to a producer, and
	// on each later hand-over (a takeover or restart resend, an
	// exactly-once rewind) the application's next resend number, 1, 2,
	// ..., so that it is unique per application. A producer's retries of
	// the record's batch keep it. It makes each hand-over a write of its
	// own in the run's history (docs/history.md, "Values"); nothing in
	// the simulated Kafka reads it, and the state hash leaves it out.
	Resend uint32
	// SentAt is the time the application called send.
	SentAt sim.Time
	// CreateTime is the record's timestamp, which the producer stamps at
	// send from its host's clock (KafkaProducer.doSend, l.1065 at
	// apache/kafka@1eb7644349cb: "timestamp = record.timestamp() == null
	// ? nowMs : ..."); on a drifting host it differs from SentAt. Topics
	// use CreateTime (message.timestamp.type's default), so the broker
	// keeps it; its timestamp bounds (message.timestamp.before.max.ms,
	// message.timestamp.after.max.ms) are not modelled.
	CreateTime sim.Time
}

// AppendID appends "a<App>:<N>".
func (id RecordID) AppendID(b []byte) []byte {
	b = append(b, 'a')
	b = strconv.AppendInt(b, int64(id.App), 10)
	b = append(b, ':')
	return strconv.AppendInt(b, id.N, 10)
}

// String returns "a<App>:<N>".
func (id RecordID) String() string { return string(id.AppendID(nil)) }

// Digest returns the payload digest of record id with the given payload
// generation. Generation 0 is the application's original payload.
func Digest(id RecordID, gen uint64) uint64 {
	x := uint64(id.App)<<40 ^ uint64(id.N) ^ gen*0x9e3779b97f4a7c15
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}
