package check

import (
	"math"
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// logEntry is one entry of a partition log as the checkers read it: 64
// bytes, where a [model.LogEntry] is 104 and keeps its batch's records
// alive. An entry's records are a range, (app, n0), (app, n0+dn), ...
// (app, n0+(nrec-1)*dn), when they are records of one application sent
// to the entry's partition with the world's digests (model.Digest(id,
// 0)) whose message numbers step by the same dn (1 when the records are
// consecutive; the number of partitions when a round-robin partitioner
// spreads them); otherwise (entryListed) they are
// logView.listed[n0:n0+nrec].
type logEntry struct {
	// first is the entry's first offset.
	first int64
	// at is when the entry was appended (simulated ns).
	at  sim.Time
	pid model.ProducerID
	// n0 is the first record's message number, or where the records
	// start in logView.listed.
	n0 int64
	// span is the last offset minus the first.
	span int32
	// nrec is the number of records (0 for a marker).
	nrec int32
	// app is the records' application (a range only).
	app int32
	// dn is the step between the message numbers of a range's records,
	// 1 to 2^31-1: 1 for an entry of one record, 0 for none.
	dn                int32
	firstSeq, lastSeq int32
	epoch             int16
	marker            model.MarkerType
	flags             entryFlags
}

// entryFlags are an entry's yes-no facts.
type entryFlags uint8

const (
	// entryTxn: the batch is transactional (markers are too).
	entryTxn entryFlags = 1 << iota
	// entryListed: the records are in logView.listed.
	entryListed
)

// logRec is a record of a log entry: its id, payload digest and the
// partition it was sent to.
type logRec struct {
	id     model.RecordID
	digest uint64
	part   int32
}

// last returns the entry's last offset.
func (e *logEntry) last() int64 { return e.first + int64(e.span) }

// transactional tells whether the entry's batch is transactional.
func (e *logEntry) transactional() bool { return e.flags&entryTxn != 0 }

// makeEntry returns the entry of batch b (its partition's log entry at
// offsets first..last, appended at at, of marker type m), adding its
// records to *listed when they are not a range.
func makeEntry(b *model.Batch, first, last int64, at sim.Time, m model.MarkerType, listed *[]logRec) logEntry {
	e := logEntry{first: first, at: at, pid: b.PID, span: int32(last - first), nrec: int32(len(b.Records)),
		firstSeq: b.FirstSeq, lastSeq: b.LastSeq, epoch: b.Epoch, marker: m}
	if b.Transactional {
		e.flags |= entryTxn
	}
	if len(b.Records) == 0 {
		return e
	}
	r0 := &b.Records[0]
	e.app, e.n0, e.dn = r0.ID.App, r0.ID.N, 1
	if len(b.Records) > 1 {
		if d := b.Records[1].ID.N - r0.ID.N; d >= 1 && d <= math.MaxInt32 {
			e.dn = int32(d)
		}
	}
	for j := range b.Records {
		r := &b.Records[j]
		if r.ID.App != e.app || r.ID.N != e.n0+int64(j)*int64(e.dn) || r.Partition != b.Partition || r.Digest != model.Digest(r.ID, 0) {
			e.app, e.n0, e.dn = 0, int64(len(*listed)), 0
			e.flags |= entryListed
			for k := range b.Records {
				r := &b.Records[k]
				*listed = append(*listed, logRec{id: r.ID, digest: r.Digest, part: r.Partition})
			}
			break
		}
	}
	return e
}

// recID returns the id of record j of entry e.
func (lv *logView) recID(e *logEntry, j int) model.RecordID {
	if e.flags&entryListed != 0 {
		return lv.listed[e.n0+int64(j)].id
	}
	return model.RecordID{App: e.app, N: e.n0 + int64(j)*int64(e.dn)}
}

// rec returns record j of entry e of partition p's log.
func (lv *logView) rec(p int32, e *logEntry, j int) logRec {
	if e.flags&entryListed != 0 {
		return lv.listed[e.n0+int64(j)]
	}
	id := model.RecordID{App: e.app, N: e.n0 + int64(j)*int64(e.dn)}
	return logRec{id: id, digest: model.Digest(id, 0), part: p}
}

// tag describes entry e of partition p's log as [model.Batch]
// AppendDescription describes its batch: "p0 pid=1000 e=0 seq=0..4 n=5
// [a0:0..a0:4]".
func (lv *logView) tag(p int32, e *logEntry) string {
	var buf [96]byte
	return string(lv.appendTag(buf[:0], p, e))
}

// appendTag appends tag's text to out.
func (lv *logView) appendTag(out []byte, p int32, e *logEntry) []byte {
	out = append(out, 'p')
	out = strconv.AppendInt(out, int64(p), 10)
	if e.pid == model.NoProducerID {
		out = append(out, " pid=none"...)
	} else {
		out = append(out, " pid="...)
		out = strconv.AppendInt(out, int64(e.pid), 10)
		out = append(out, " e="...)
		out = strconv.AppendInt(out, int64(e.epoch), 10)
		out = append(out, " seq="...)
		out = strconv.AppendInt(out, int64(e.firstSeq), 10)
		out = append(out, ".."...)
		out = strconv.AppendInt(out, int64(e.lastSeq), 10)
	}
	if e.transactional() {
		out = append(out, " txn"...)
	}
	out = append(out, " n="...)
	out = strconv.AppendInt(out, int64(e.nrec), 10)
	if e.nrec > 0 {
		out = append(out, " ["...)
		out = lv.recID(e, 0).AppendID(out)
		if e.nrec > 1 {
			out = append(out, ".."...)
			out = lv.recID(e, int(e.nrec)-1).AppendID(out)
		}
		out = append(out, ']')
	}
	return out
}
