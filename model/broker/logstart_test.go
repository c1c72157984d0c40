package broker

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
)

// TestDeleteRecordsMovesLogStart: DeleteRecords on the leader moves the
// log start (not past the high watermark: OFFSET_OUT_OF_RANGE); a
// consumer's fetch below it is OFFSET_OUT_OF_RANGE, ListOffsets EARLIEST
// answers it, a produce response carries it, and the followers learn it
// from the leader's fetch answers.
func TestDeleteRecordsMovesLogStart(t *testing.T) {
	w := newBWorld(t, 3, LeaderConfig{})
	w.runUntil(ms(100))
	for seq := range int32(5) {
		w.produce(0, 1, seq)
	}
	w.runUntil(ms(300))
	lead := w.brokers[0].Partition(0)
	if hw := lead.HighWatermark(); hw != 5 {
		t.Fatalf("HW %d, want 5", hw)
	}
	w.outs(0, w.brokers[0].DeleteRecords(w.now, 0, 6))
	if s := lead.LogStartOffset(); s != 0 {
		t.Fatalf("DeleteRecords past the high watermark moved the log start to %d", s)
	}
	w.outs(1, w.brokers[1].DeleteRecords(w.now, 0, 2))
	if s := w.brokers[1].Partition(0).LogStartOffset(); s != 0 {
		t.Fatalf("a follower's DeleteRecords moved its log start to %d", s)
	}
	w.outs(0, w.brokers[0].DeleteRecords(w.now, 0, 3))
	if s := lead.LogStartOffset(); s != 3 {
		t.Fatalf("log start %d after DeleteRecords before 3", s)
	}
	w.produce(0, 1, 5)
	w.runUntil(ms(600))
	for i, b := range w.brokers {
		if s := b.Partition(0).LogStartOffset(); s != 3 {
			t.Errorf("b%d's log start %d, want 3", i, s)
		}
	}
	if r := w.replies[len(w.replies)-1].(*model.ProduceResponse); r.Partitions[0].LogStartOffset != 3 {
		t.Errorf("produce response log start %d, want 3", r.Partitions[0].LogStartOffset)
	}
	client := int32(len(w.brokers)) + 1
	ask := func(m model.Message) model.Message {
		t.Helper()
		n := len(w.replies)
		w.step(client, 0, m)
		w.runUntil(w.now.Add(2 * time.Millisecond))
		if len(w.replies) != n+1 {
			t.Fatal("no answer")
		}
		return w.replies[n]
	}
	if r := ask(&model.ConsumerFetchRequest{CorrelationID: 1, FetchOffset: 2, CurrentLeaderEpoch: -1}).(*model.ConsumerFetchResponse); r.Err != model.ErrOffsetOutOfRange {
		t.Errorf("fetch below the log start: %v, want OFFSET_OUT_OF_RANGE", r.Err)
	}
	if r := ask(&model.ConsumerFetchRequest{CorrelationID: 2, FetchOffset: 3, CurrentLeaderEpoch: -1}).(*model.ConsumerFetchResponse); r.Err != model.ErrNone || r.LogStartOffset != 3 || len(r.Entries) == 0 || r.Entries[0].FirstOffset != 3 {
		t.Errorf("fetch at the log start: %v start=%d entries=%d", r.Err, r.LogStartOffset, len(r.Entries))
	}
	if r := ask(&model.ListOffsetsRequest{CorrelationID: 3, Timestamp: model.EarliestTimestamp, CurrentLeaderEpoch: -1}).(*model.ListOffsetsResponse); r.Offset != 3 {
		t.Errorf("ListOffsets EARLIEST = %d, want the log start 3", r.Offset)
	}
}

// TestRetentionCheck: a broker with retention.bytes runs the retention
// check at its interval's boundaries and moves the log start.
func TestRetentionCheck(t *testing.T) {
	w := newBWorld(t, 1, LeaderConfig{})
	b := w.brokers[0]
	cfg := b.Config()
	cfg.RetentionCheckInterval = time.Second
	cfg.Partition.Retention = &storage.Retention{Ms: -1, Records: 2}
	b.Reset(cfg)
	w.outs(0, b.Start(w.now))
	w.runUntil(ms(100))
	for seq := range int32(5) {
		w.produce(0, 1, seq)
	}
	w.runUntil(ms(900))
	if s := b.Partition(0).LogStartOffset(); s != 0 {
		t.Fatalf("log start %d before the first check", s)
	}
	w.runUntil(ms(1100))
	if s := b.Partition(0).LogStartOffset(); s != 3 {
		t.Fatalf("log start %d after the check at 1 s, want 3 (retention.bytes 2)", s)
	}
}
