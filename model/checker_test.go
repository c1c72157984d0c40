package model

import (
	"strings"
	"testing"
)

func entry(first int64, b Batch) *LogEntry {
	return &LogEntry{FirstOffset: first, LastOffset: first + int64(len(b.Records)) - 1, Batch: b}
}

func invariants(vs []Violation) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.Invariant)
	}
	return strings.Join(s, ",")
}

func TestCheckerLogShape(t *testing.T) {
	for _, c := range []struct {
		name    string
		batches []Batch
		want    string
	}{
		{"contiguous", []Batch{stateTestBatch(1, 0, 0, 2), stateTestBatch(1, 0, 2, 3)}, ""},
		{"gap", []Batch{stateTestBatch(1, 0, 0, 2), stateTestBatch(1, 0, 3, 1)}, InvSeq},
		{"new pid not at 0", []Batch{stateTestBatch(1, 0, 4, 1)}, InvSeq},
		{"bump to 0", []Batch{stateTestBatch(1, 0, 0, 2), stateTestBatch(1, 1, 0, 1)}, ""},
		{"bump not at 0", []Batch{stateTestBatch(1, 0, 0, 2), stateTestBatch(1, 1, 2, 1)}, InvSeq},
		{"epoch down", []Batch{stateTestBatch(1, 1, 0, 2), stateTestBatch(1, 0, 2, 1)}, InvSeq},
		{"epoch out of range", []Batch{stateTestBatch(1, -3, 0, 1)}, InvEpoch},
	} {
		ch := NewChecker()
		off := int64(0)
		for _, b := range c.batches {
			ch.OnAppend(0, entry(off, b))
			off += int64(len(b.Records))
		}
		_, vs := ch.Finish(0, nil, 0)
		// Records reuse ids across batches in this table; keep only shape.
		var shape []Violation
		for _, v := range vs {
			if v.Invariant != InvDup && v.Invariant != InvOrder {
				shape = append(shape, v)
			}
		}
		if got := invariants(shape); got != c.want {
			t.Errorf("%s: violations %q, want %q (%v)", c.name, got, c.want, shape)
		}
	}
}

func TestCheckerFenceAndDedup(t *testing.T) {
	ch := NewChecker()
	ch.OnEpochAssigned(0, 5, 0)
	ch.OnAppend(0, entry(0, stateTestBatch(5, 0, 0, 1)))
	ch.OnEpochAssigned(1, 5, 1)
	ch.OnAppend(2, entry(1, stateTestBatch(5, 0, 1, 1))) // a zombie write
	ch.OnEpochAssigned(3, 5, 0)                          // epochs never go down
	orig := entry(0, stateTestBatch(5, 0, 0, 1))
	same := stateTestBatch(5, 0, 0, 1)
	ch.OnDuplicate(4, &same, orig)
	other := stateTestBatch(5, 0, 0, 1)
	other.Records[0].Digest = 99 // new data with a reused sequence (Z11)
	ch.OnDuplicate(5, &other, orig)
	_, vs := ch.Finish(6, nil, 0)
	if got := invariants(vs); got != InvFence+","+InvEpoch+","+InvDedup {
		t.Fatalf("violations %q (%v)", got, vs)
	}
}

func TestCheckerCounts(t *testing.T) {
	ch := NewChecker()
	r := func(n int64) Record { return Record{ID: RecordID{App: 0, N: n}} }
	for i := 0; i < 4; i++ {
		ch.OnSend()
	}
	ch.OnOutcome(Outcome{ID: r(0).ID, Offset: 0})
	ch.OnOutcome(Outcome{ID: r(1).ID, Offset: 2})
	ch.OnOutcome(Outcome{ID: r(2).ID, Offset: 9}) // acknowledged, never appended
	ch.OnOutcome(Outcome{ID: r(3).ID, Err: ErrDeliveryTimeout, Offset: -1})
	log := []LogEntry{
		{FirstOffset: 0, LastOffset: 0, Batch: Batch{PID: NoProducerID, Records: []Record{r(0)}}},
		{FirstOffset: 1, LastOffset: 1, Batch: Batch{PID: NoProducerID, Records: []Record{r(1)}}},
		{FirstOffset: 2, LastOffset: 2, Batch: Batch{PID: NoProducerID, Records: []Record{r(1)}}}, // duplicate
		{FirstOffset: 3, LastOffset: 3, Batch: Batch{PID: NoProducerID, Records: []Record{r(0)}}}, // duplicate
	}
	for i := range log {
		ch.OnAppend(0, &log[i])
	}
	counts, vs := ch.Finish(10, [][]LogEntry{log}, 1)
	want := Counts{Sent: 4, Acked: 3, Failed: 1, Pending: 1, Appended: 4, Duplicates: 2, LostAcked: 1}
	if counts != want {
		t.Fatalf("counts %+v, want %+v", counts, want)
	}
	if got := invariants(vs); got != "INV-DUP,INV-DUP,INV-LOSS,INV-DEDUP,LIVE-PROD" {
		t.Fatalf("violations %q (%v)", got, vs)
	}
}
