package check

import (
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestLogEntryAsBatch: a compact log entry tells its records (ids,
// digests, partitions), offsets and description as its batch does,
// whether its records are a range (by steps of 1 or more) or listed.
func TestLogEntryAsBatch(t *testing.T) {
	rec := func(app int32, n int64, p int32, gen uint64) model.Record {
		id := model.RecordID{App: app, N: n}
		return model.Record{ID: id, Digest: model.Digest(id, gen), Partition: p}
	}
	batches := []model.Batch{
		{Partition: 2, PID: model.NoProducerID, Epoch: -1, FirstSeq: model.NoSequence, LastSeq: model.NoSequence},
		{Partition: 2, PID: 1000, Epoch: 3, FirstSeq: 7, LastSeq: 7, Records: []model.Record{rec(1, 5, 2, 0)}},
		{Partition: 2, PID: 1001, Epoch: 0, FirstSeq: 0, LastSeq: 2, Transactional: true, Txn: 4,
			Records: []model.Record{rec(0, 9, 2, 0), rec(0, 10, 2, 0), rec(0, 11, 2, 0)}},
		{Partition: 2, PID: model.NoProducerID, Records: []model.Record{rec(0, 9, 2, 0), rec(0, 11, 2, 0), rec(0, 13, 2, 0)}}, // a step of 2: a range
		{Partition: 2, PID: model.NoProducerID, Records: []model.Record{rec(0, 9, 2, 0), rec(0, 11, 2, 0), rec(0, 12, 2, 0)}}, // uneven steps
		{Partition: 2, PID: model.NoProducerID, Records: []model.Record{rec(0, 11, 2, 0), rec(0, 9, 2, 0)}},                   // a step back
		{Partition: 2, PID: model.NoProducerID, Records: []model.Record{rec(0, 9, 2, 0), rec(1, 10, 2, 0)}},                   // two apps
		{Partition: 2, PID: model.NoProducerID, Records: []model.Record{rec(0, 9, 2, 1)}},                                     // another digest
		{Partition: 2, PID: 1002, FirstSeq: 1, LastSeq: 2, Records: []model.Record{rec(0, 3, 2, 0), rec(0, 4, 1, 0)}},         // another partition
	}
	var lv logView
	lv.reset(false)
	for i := range batches {
		b := &batches[i]
		first := int64(10 * i)
		last := first + max(int64(len(b.Records))-1, 0)
		lv.appendTo(b.Partition, b, first, last, 5, model.MarkerNone)
		ev := lv.logs[2].at(i)
		e := &ev
		if e.first != first || e.last() != last || e.pid != b.PID || e.transactional() != b.Transactional || int(e.nrec) != len(b.Records) {
			t.Errorf("batch %d: entry %+v", i, *e)
		}
		if got, want := lv.tag(2, e), batchTag(b); got != want {
			t.Errorf("batch %d: tag %q, want %q", i, got, want)
		}
		for j, r := range b.Records {
			if got, want := lv.rec(2, e, j), (logRec{id: r.ID, digest: r.Digest, part: r.Partition}); got != want {
				t.Errorf("batch %d record %d: %+v, want %+v", i, j, got, want)
			}
			if lv.recID(e, j) != r.ID {
				t.Errorf("batch %d record %d: id %v", i, j, lv.recID(e, j))
			}
		}
		if listed := e.flags&entryListed != 0; listed != (i >= 4) {
			t.Errorf("batch %d: listed %v", i, listed)
		}
	}
}
