package storage

import (
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// mk returns an idempotent batch of pid/epoch covering first..last in s.
func mk(s model.SeqSpace, pid model.ProducerID, epoch int16, first, last int32, txn bool) model.Batch {
	n := int64(1)
	if first >= 0 && last >= 0 {
		n = s.Count(first, last)
	}
	return model.Batch{PID: pid, Epoch: epoch, FirstSeq: first, LastSeq: last, Transactional: txn, Records: make([]model.Record, n)}
}

type step struct {
	b      model.Batch
	marker model.MarkerType // if set, b.PID/b.Epoch give the marker
}

func data(pid model.ProducerID, epoch int16, first, last int32) step {
	return step{b: mk(model.SeqSpace{}, pid, epoch, first, last, false)}
}

func txnData(pid model.ProducerID, epoch int16, first, last int32) step {
	return step{b: mk(model.SeqSpace{}, pid, epoch, first, last, true)}
}

func run(t *testing.T, p *Partition, steps []step) {
	t.Helper()
	for i, s := range steps {
		var r model.AppendResult
		if s.marker != model.MarkerNone {
			r = p.AppendMarker(0, s.b.PID, s.b.Epoch, 0, s.marker)
		} else {
			r = p.Append(0, s.b)
		}
		if r.Err != model.ErrNone {
			t.Fatalf("setup step %d: %v (%s)", i, r.Err, r.Reason)
		}
	}
}

// TestAppendOutcomes covers every outcome of Append's checks
// (UnifiedLog.analyzeAndValidateProducerState).
func TestAppendOutcomes(t *testing.T) {
	const max = int32(2147483647)
	tests := []struct {
		name   string
		setup  []step
		probe  model.Batch
		want   model.ErrCode
		dup    bool
		offset int64 // first offset on success or duplicate
	}{
		{"unknown pid any seq", nil, mk(model.SeqSpace{}, 1, 3, 77, 79, false), model.ErrNone, false, 0},
		{"in sequence", []step{data(1, 0, 0, 4)}, mk(model.SeqSpace{}, 1, 0, 5, 6, false), model.ErrNone, false, 5},
		{"negative seq", nil, mk(model.SeqSpace{}, 1, 0, -1, -1, false), model.ErrInvalidRecord, false, -1},
		{"negative seq beats duplicate", []step{data(1, 0, 0, 0)}, mk(model.SeqSpace{}, 1, 0, -1, 0, false), model.ErrInvalidRecord, false, -1},
		{"count mismatch", nil, model.Batch{PID: 1, FirstSeq: 0, LastSeq: 3, Records: make([]model.Record, 2)}, model.ErrInvalidRecord, false, -1},
		{"duplicate newest", []step{data(1, 0, 0, 4), data(1, 0, 5, 9)}, mk(model.SeqSpace{}, 1, 0, 5, 9, false), model.ErrNone, true, 5},
		{"duplicate non-last", []step{data(1, 0, 0, 4), data(1, 0, 5, 9), data(1, 0, 10, 10)}, mk(model.SeqSpace{}, 1, 0, 0, 4, false), model.ErrNone, true, 0},
		{"duplicate beats txn-state check", []step{data(1, 0, 0, 0), txnData(1, 0, 1, 1)}, mk(model.SeqSpace{}, 1, 0, 0, 0, false), model.ErrNone, true, 0},
		{"older than window", []step{data(1, 0, 0, 0), data(1, 0, 1, 1), data(1, 0, 2, 2), data(1, 0, 3, 3), data(1, 0, 4, 4), data(1, 0, 5, 5)}, mk(model.SeqSpace{}, 1, 0, 0, 0, false), model.ErrOutOfOrderSequenceNumber, false, -1},
		{"partial overlap", []step{data(1, 0, 0, 4)}, mk(model.SeqSpace{}, 1, 0, 2, 6, false), model.ErrOutOfOrderSequenceNumber, false, -1},
		{"superset", []step{data(1, 0, 0, 4)}, mk(model.SeqSpace{}, 1, 0, 0, 5, false), model.ErrOutOfOrderSequenceNumber, false, -1},
		{"gap", []step{data(1, 0, 0, 4)}, mk(model.SeqSpace{}, 1, 0, 6, 6, false), model.ErrOutOfOrderSequenceNumber, false, -1},
		{"lower epoch", []step{data(1, 2, 0, 0)}, mk(model.SeqSpace{}, 1, 1, 1, 1, false), model.ErrInvalidProducerEpoch, false, -1},
		{"lower epoch exact retry", []step{data(1, 0, 0, 0), data(1, 1, 0, 0)}, mk(model.SeqSpace{}, 1, 0, 0, 0, false), model.ErrInvalidProducerEpoch, false, -1},
		{"higher epoch at 0", []step{data(1, 0, 0, 4)}, mk(model.SeqSpace{}, 1, 1, 0, 0, false), model.ErrNone, false, 5},
		{"higher epoch not at 0", []step{data(1, 0, 0, 4)}, mk(model.SeqSpace{}, 1, 1, 5, 5, false), model.ErrOutOfOrderSequenceNumber, false, -1},
		{"non-txn during txn", []step{txnData(1, 0, 0, 0)}, mk(model.SeqSpace{}, 1, 0, 1, 1, false), model.ErrInvalidTxnState, false, -1},
		{"bad seq beats txn state", []step{txnData(1, 0, 0, 0)}, mk(model.SeqSpace{}, 1, 0, 5, 5, false), model.ErrOutOfOrderSequenceNumber, false, -1},
		{"txn continues txn", []step{txnData(1, 0, 0, 0)}, mk(model.SeqSpace{}, 1, 0, 1, 1, true), model.ErrNone, false, 1},
		{"after marker same epoch", []step{txnData(1, 0, 0, 0), {b: model.Batch{PID: 1}, marker: model.MarkerCommit}}, mk(model.SeqSpace{}, 1, 0, 1, 1, false), model.ErrNone, false, 2},
		{"after bumping marker seq 0 only", []step{data(1, 0, 0, 3), {b: model.Batch{PID: 1, Epoch: 1}, marker: model.MarkerAbort}}, mk(model.SeqSpace{}, 1, 1, 4, 4, false), model.ErrOutOfOrderSequenceNumber, false, -1},
		{"wrap spanning batch", []step{data(1, 0, max-3, max-2)}, mk(model.SeqSpace{}, 1, 0, max-1, 2, false), model.ErrNone, false, 2},
		{"after max only 0", []step{data(1, 0, max-1, max)}, mk(model.SeqSpace{}, 1, 0, 1, 1, false), model.ErrOutOfOrderSequenceNumber, false, -1},
		{"after max 0 ok", []step{data(1, 0, max-1, max)}, mk(model.SeqSpace{}, 1, 0, 0, 0, false), model.ErrNone, false, 2},
		{"other pid unaffected", []step{data(2, 5, 0, 9)}, mk(model.SeqSpace{}, 1, 0, 3, 3, false), model.ErrNone, false, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPartition(0, PartitionConfig{})
			run(t, p, tt.setup)
			leo := p.LogEndOffset()
			var before ProducerStateEntry
			if e := p.Producer(tt.probe.PID); e != nil {
				before = *e
				before.Batches = slices.Clone(e.Batches)
			}
			got := p.Append(1, tt.probe)
			if got.Err != tt.want || got.Duplicate != tt.dup || got.FirstOffset != tt.offset {
				t.Fatalf("Append = {%v dup=%v off=%d %q}, want {%v dup=%v off=%d}", got.Err, got.Duplicate, got.FirstOffset, got.Reason, tt.want, tt.dup, tt.offset)
			}
			if got.Err != model.ErrNone || got.Duplicate {
				if p.LogEndOffset() != leo {
					t.Errorf("log end moved %d -> %d", leo, p.LogEndOffset())
				}
				if e := p.Producer(tt.probe.PID); e != nil && (e.Epoch != before.Epoch || !slices.Equal(e.Batches, before.Batches) || e.TxnFirstOffset != before.TxnFirstOffset) {
					t.Errorf("producer state changed: %+v -> %+v", before, *e)
				}
			}
		})
	}
}

// TestSmallSeqSpaceWrap checks wrap rules in a 3-bit space (0..7).
func TestSmallSeqSpaceWrap(t *testing.T) {
	s := model.SeqSpace{Bits: 3}
	p := NewPartition(0, PartitionConfig{Seq: s})
	for i, c := range []struct {
		first, last int32
		want        model.ErrCode
		dup         bool
	}{
		{5, 5, model.ErrNone, false},
		{6, 1, model.ErrNone, false}, // 6,7,0,1 spans the wrap
		{6, 1, model.ErrNone, true},
		{2, 7, model.ErrNone, false},
		{1, 1, model.ErrOutOfOrderSequenceNumber, false}, // after 7 only 0
		{8, 8, model.ErrInvalidRecord, false},            // outside the space
		{0, 2, model.ErrNone, false},
	} {
		got := p.Append(0, mk(s, 1, 0, c.first, c.last, false))
		if got.Err != c.want || got.Duplicate != c.dup {
			t.Fatalf("case %d [%d,%d]: %v dup=%v (%s), want %v dup=%v", i, c.first, c.last, got.Err, got.Duplicate, got.Reason, c.want, c.dup)
		}
	}
}

// stamped returns b with every record's CreateTime set to ts.
func stamped(b model.Batch, ts sim.Time) model.Batch {
	for i := range b.Records {
		b.Records[i].CreateTime = ts
	}
	return b
}

// TestExpiryCreateTime: producer-state expiry counts from the batch's max
// timestamp, the records' CreateTime from the client, not from the append
// (ProducerAppendInfo.append passes batch.maxTimestamp()): a batch
// appended late, or stamped by a clock that runs behind, expires early;
// one stamped by a clock ahead expires late.
func TestExpiryCreateTime(t *testing.T) {
	exp := 10 * time.Second
	p := NewPartition(0, PartitionConfig{ProducerIDExpiration: exp})
	at := func(d time.Duration) sim.Time { return sim.Time(0).Add(d) }
	old := mk(model.SeqSpace{}, 1, 0, 0, 1, false)
	old.Records[0].CreateTime, old.Records[1].CreateTime = at(2*time.Second), at(time.Second) // max 2s
	p.Append(at(8*time.Second), old)
	p.Append(at(8*time.Second), stamped(mk(model.SeqSpace{}, 2, 0, 0, 0, false), at(9*time.Second))) // a clock ahead
	if e := p.Producer(1); e.LastTimestamp != at(2*time.Second) || e.Batches[0].Timestamp != at(2*time.Second) {
		t.Fatalf("entry %+v, want the batch's max timestamp 2s", e)
	}
	if got := p.ExpireProducers(at(12 * time.Second)); !slices.Equal(got, []model.ProducerID{1}) {
		t.Fatalf("at 12s: %v, want [1] (10s after its CreateTime, 4s after its append)", got)
	}
	if got := p.ExpireProducers(at(18*time.Second + time.Second - 1)); len(got) != 0 {
		t.Fatalf("before 19s: %v", got)
	}
	if got := p.ExpireProducers(at(19 * time.Second)); !slices.Equal(got, []model.ProducerID{2}) {
		t.Fatalf("at 19s: %v, want [2]", got)
	}
}

func TestExpiry(t *testing.T) {
	exp := 10 * time.Second
	p := NewPartition(0, PartitionConfig{ProducerIDExpiration: exp})
	at := func(d time.Duration) sim.Time { return sim.Time(0).Add(d) }
	p.Append(at(0), stamped(mk(model.SeqSpace{}, 7, 0, 0, 0, false), at(0)))
	p.Append(at(0), stamped(mk(model.SeqSpace{}, 3, 0, 0, 0, true), at(0))) // open txn
	p.Append(at(time.Second), stamped(mk(model.SeqSpace{}, 5, 0, 0, 0, false), at(time.Second)))
	p.Append(at(time.Second), stamped(mk(model.SeqSpace{}, 1, 0, 0, 0, false), at(time.Second)))
	if got := p.ExpireProducers(at(exp - 1)); len(got) != 0 {
		t.Fatalf("expired early: %v", got)
	}
	if got := p.ExpireProducers(at(exp)); !slices.Equal(got, []model.ProducerID{7}) {
		t.Fatalf("at expiration: %v, want [7]", got)
	}
	if got := p.ExpireProducers(at(100 * exp)); !slices.Equal(got, []model.ProducerID{1, 5}) {
		t.Fatalf("later: %v, want [1 5] (3 has an open txn)", got)
	}
	if p.ExpireProducer(3) {
		t.Fatal("open transaction expired")
	}
	p.AppendMarker(at(100*exp), 3, 0, 0, model.MarkerCommit)
	if got := p.ExpireProducers(at(101*exp - 1)); len(got) != 0 {
		t.Fatalf("marker did not refresh the timestamp: %v", got)
	}
	if got := p.ExpireProducers(at(101 * exp)); !slices.Equal(got, []model.ProducerID{3}) {
		t.Fatalf("after commit: %v", got)
	}
	// Default expiration is one day.
	q := NewPartition(0, PartitionConfig{})
	q.Append(0, mk(model.SeqSpace{}, 1, 0, 0, 0, false))
	if got := q.ExpireProducers(at(24*time.Hour - 1)); len(got) != 0 {
		t.Fatal("expired before 86400000 ms")
	}
	if got := q.ExpireProducers(at(24 * time.Hour)); len(got) != 1 {
		t.Fatal("not expired at 86400000 ms")
	}
}

// TestRestart: clean keeps only the newest batch (retry of the
// second-newest is OOSN); unclean with replay from an older snapshot
// recognises it as a duplicate.
func TestRestart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		clean bool
		want  model.ErrCode
		dup   bool
	}{
		{"clean", true, model.ErrOutOfOrderSequenceNumber, false},
		{"unclean", false, model.ErrNone, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPartition(0, PartitionConfig{SnapshotEvery: 2})
			for i := int32(0); i < 3; i++ { // snapshot after the 2nd batch
				if r := p.Append(0, mk(model.SeqSpace{}, 1, 0, 2*i, 2*i+1, false)); r.Err != model.ErrNone {
					t.Fatal(r.Err)
				}
			}
			if s, ok := p.LastSnapshot(); !ok || s.Offset != 4 {
				t.Fatalf("periodic snapshot = %+v, %v; want offset 4", s, ok)
			}
			p.Restart(0, tc.clean)
			r := p.Append(0, mk(model.SeqSpace{}, 1, 0, 2, 3, false))
			if r.Err != tc.want || r.Duplicate != tc.dup {
				t.Fatalf("retry of second-newest: %v dup=%v, want %v dup=%v", r.Err, r.Duplicate, tc.want, tc.dup)
			}
			r = p.Append(0, mk(model.SeqSpace{}, 1, 0, 4, 5, false))
			if !r.Duplicate || r.FirstOffset != 4 {
				t.Fatalf("retry of newest: %+v", r)
			}
			if r := p.Append(0, mk(model.SeqSpace{}, 1, 0, 6, 6, false)); r.Err != model.ErrNone || r.FirstOffset != 6 {
				t.Fatalf("next batch: %+v", r)
			}
		})
	}
}

func TestRestartWindowCapped(t *testing.T) {
	p := NewPartition(0, PartitionConfig{Window: 3})
	for i := int32(0); i < 10; i++ {
		p.Append(0, mk(model.SeqSpace{}, 1, 0, i, i, false))
	}
	p.Restart(0, false) // no snapshot: replay everything
	e := p.Producer(1)
	if len(e.Batches) != 3 || e.Batches[0].FirstSeq != 7 || e.lastSeq() != 9 {
		t.Fatalf("window after replay = %+v", e.Batches)
	}
}

func TestVerificationAnswers(t *testing.T) {
	for _, c := range []struct {
		answer, want model.ErrCode
	}{
		{model.ErrNone, model.ErrNone},
		{model.ErrProducerFenced, model.ErrInvalidProducerEpoch},
		{model.ErrConcurrentTransactions, model.ErrNotEnoughReplicas},
		{model.ErrNetworkException, model.ErrNotEnoughReplicas},
		{model.ErrInvalidTxnState, model.ErrInvalidTxnState},
		{model.ErrTransactionAbortable, model.ErrTransactionAbortable},
		{model.ErrInvalidProducerIDMapping, model.ErrInvalidProducerIDMapping},
		{model.ErrInvalidProducerEpoch, model.ErrInvalidProducerEpoch},
	} {
		p := NewPartition(0, PartitionConfig{})
		got := p.AppendWith(0, mk(model.SeqSpace{}, 1, 0, 0, 0, true), AppendOptions{Verification: c.answer})
		if got.Err != c.want {
			t.Errorf("verification %v: got %v, want %v", c.answer, got.Err, c.want)
		}
		off := NewPartition(0, PartitionConfig{NoPartitionVerification: true})
		if got := off.AppendWith(0, mk(model.SeqSpace{}, 1, 0, 0, 0, true), AppendOptions{Verification: c.answer}); got.Err != model.ErrNone {
			t.Errorf("verification off, answer %v: got %v", c.answer, got.Err)
		}
	}
}

// BenchmarkPartitionAppend measures the client append path.
func BenchmarkPartitionAppend(b *testing.B) {
	recs := make([]model.Record, 10)
	b.Run("in-sequence", func(b *testing.B) {
		p := NewPartition(0, PartitionConfig{})
		var seq int32
		b.ReportAllocs()
		for b.Loop() {
			bt := model.Batch{PID: 1, Epoch: 0, FirstSeq: seq, LastSeq: seq + 9, Records: recs}
			if r := p.Append(0, bt); r.Err != model.ErrNone {
				b.Fatal(r.Err)
			}
			seq = p.cfg.Seq.Add(seq, 10)
			if seq > p.cfg.Seq.Max()-20 {
				seq = 0
				p = NewPartition(0, PartitionConfig{})
			}
		}
	})
	b.Run("duplicate", func(b *testing.B) {
		p := NewPartition(0, PartitionConfig{})
		for i := int32(0); i < 5; i++ {
			p.Append(0, model.Batch{PID: 1, FirstSeq: 10 * i, LastSeq: 10*i + 9, Records: recs})
		}
		bt := model.Batch{PID: 1, FirstSeq: 0, LastSeq: 9, Records: recs}
		b.ReportAllocs()
		for b.Loop() {
			if r := p.Append(0, bt); !r.Duplicate {
				b.Fatal("not a duplicate")
			}
		}
	})
}

// TestResetReusesProducerEntries: a reset partition hands its previous
// run's producer-state entries out again, emptied (no batches, no
// coordinator epoch, no open transaction), so that a run in a reused
// broker allocates no entry.
func TestResetReusesProducerEntries(t *testing.T) {
	cfg := PartitionConfig{Window: 3}
	p := NewPartition(0, cfg)
	at := func(d time.Duration) sim.Time { return sim.Time(0).Add(d) }
	for s := int32(0); s < 4; s++ {
		if r := p.Append(at(time.Second), mk(model.SeqSpace{}, 1, 0, s, s, s == 3)); r.Err != model.ErrNone {
			t.Fatalf("append seq %d: %v", s, r.Err)
		}
	}
	if r := p.AppendMarker(at(time.Second), 2, 1, 5, model.MarkerAbort); r.Err != model.ErrNone {
		t.Fatalf("marker: %v", r.Err)
	}
	old := []*ProducerStateEntry{p.Producer(1), p.Producer(2)}
	p.Reset(0, cfg)
	if p.Producer(1) != nil || p.Producer(2) != nil {
		t.Fatal("reset kept producer state")
	}
	b := mk(model.SeqSpace{}, 7, 3, 0, 1, false)
	if r := p.Append(at(2*time.Second), b); r.Err != model.ErrNone {
		t.Fatalf("append after reset: %v", r.Err)
	}
	e := p.Producer(7)
	if !slices.Contains(old, e) {
		t.Error("the new producer's entry is not one reset took back")
	}
	want := ProducerStateEntry{Epoch: 3, CoordinatorEpoch: -1, TxnFirstOffset: -1, LastTimestamp: e.LastTimestamp,
		Batches: []BatchMetadata{{FirstSeq: 0, LastSeq: 1, FirstOffset: 0, LastOffset: 1, Timestamp: e.LastTimestamp}}}
	if e.Epoch != want.Epoch || e.CoordinatorEpoch != want.CoordinatorEpoch || e.TxnFirstOffset != want.TxnFirstOffset || !slices.Equal(e.Batches, want.Batches) {
		t.Errorf("reused entry = %+v, want %+v", *e, want)
	}
	if a := testing.AllocsPerRun(20, func() {
		p.Reset(0, cfg)
		p.Append(at(2*time.Second), b)
	}); a != 0 {
		t.Errorf("a reset partition's first append allocates %.1f times, want 0", a)
	}
}
