package storage

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// logGen makes random log entries that continue a log: mostly batches of
// a few producers that follow their record patterns (consecutive or
// strided message numbers, regular send times), with markers, batches
// without a producer id, epoch bumps, wrapping sequence numbers and
// every kind of odd record (a record handed over again among them) mixed
// in.
type logGen struct {
	// k > 0 makes the log mostly a transactional producer's units: k
	// batches and a marker, each transaction at a new epoch (see
	// cycEntry); pos is the next entry's place in its unit.
	k, pos int
	rng    *rand.Rand
	next   int64 // the log end offset
	now    sim.Time
	prod   []genProducer
	last   int // the producer of the last entry, most often the next's
}

type genProducer struct {
	pid    model.ProducerID
	epoch  int16
	seq    int32
	app    int32
	n, dn  int64
	sent   sim.Time
	dsent  sim.Time
	drift  sim.Time
	nrec   int
	txn    int32
	txnal  bool
	noPID  bool
	stride int32
}

func newLogGen(seed uint64) *logGen {
	g := &logGen{rng: rand.New(rand.NewPCG(seed, 7))}
	for i := range 3 {
		p := genProducer{pid: model.ProducerID(1000 + i), app: int32(i), dn: 1, dsent: sim.Time(1e6), nrec: 1 + g.rng.IntN(3), stride: 1}
		switch g.rng.IntN(5) {
		case 0:
			p.noPID = true
		case 1:
			p.dn, p.dsent = 3, 3e6 // round-robin over 3 partitions
		case 2:
			p.seq = math.MaxInt32 - 4 // wraps soon
		case 3:
			p.txnal, p.txn = true, 1
		}
		g.prod = append(g.prod, p)
	}
	return g
}

// cycEntry returns the next entry of producer 0's transactions of g.k
// batches and a marker (as under transaction version 2: the marker at
// the next epoch, the next transaction at it, its sequences from 0),
// now and then broken: an abort, another unit size, a marker of another
// coordinator epoch, a random entry of g.entry's.
func (g *logGen) cycEntry() model.LogEntry {
	r := g.rng
	if r.IntN(40) == 0 {
		return g.randEntry()
	}
	p := &g.prod[0]
	p.txnal, p.noPID = true, false
	g.now += 1e6
	if g.pos < g.k {
		g.pos++
		g.last = 0
		n := p.nrec
		b := model.Batch{PID: p.pid, Epoch: p.epoch, FirstSeq: p.seq, Txn: p.txn, Transactional: true}
		for range n {
			id := model.RecordID{App: p.app, N: p.n}
			b.Records = append(b.Records, model.Record{ID: id, Digest: model.Digest(id, 0), SentAt: p.sent, CreateTime: p.sent + p.drift})
			p.n += p.dn
			p.sent += p.dsent
		}
		b.LastSeq = model.SeqSpace{}.Add(p.seq, int64(n-1))
		p.seq = model.SeqSpace{}.Add(p.seq, int64(n))
		e := model.LogEntry{FirstOffset: g.next, LastOffset: g.next + int64(n) - 1, Batch: b, AppendedAt: g.now, CoordinatorEpoch: -1}
		g.next += int64(n)
		return e
	}
	g.pos = 0
	m := model.MarkerCommit
	if r.IntN(30) == 0 {
		m = model.MarkerAbort
	}
	ce := int32(0)
	if r.IntN(30) == 0 {
		ce = 1
	}
	p.epoch++
	e := model.LogEntry{FirstOffset: g.next, LastOffset: g.next, AppendedAt: g.now, CoordinatorEpoch: ce, Marker: m,
		Batch: model.Batch{PID: p.pid, Epoch: p.epoch, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Txn: p.txn, Transactional: true}}
	p.txn++
	p.seq = 0
	g.next++
	if r.IntN(20) == 0 {
		g.k = 1 + r.IntN(3)
	}
	if r.IntN(25) == 0 {
		p.nrec = 1 + r.IntN(3)
	}
	return e
}

// entry returns a random entry at the log end, and moves the end.
func (g *logGen) entry() model.LogEntry {
	if g.k > 0 {
		return g.cycEntry()
	}
	return g.randEntry()
}

// randEntry returns a random entry at the log end, and moves the end.
func (g *logGen) randEntry() model.LogEntry {
	r := g.rng
	g.now += sim.Time(r.IntN(3)) * 1e6
	if r.IntN(4) == 0 {
		g.last = r.IntN(len(g.prod))
	}
	p := &g.prod[g.last]
	if r.IntN(12) == 0 {
		// A marker, sometimes with an empty non-nil records slice.
		e := model.LogEntry{FirstOffset: g.next, LastOffset: g.next, AppendedAt: g.now, CoordinatorEpoch: int32(r.IntN(3)),
			Marker: model.MarkerType(1 + r.IntN(2)), Batch: model.Batch{PID: p.pid, Partition: 0, Epoch: p.epoch, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Transactional: true}}
		if r.IntN(4) == 0 {
			e.Batch.Records = []model.Record{}
		}
		if p.txnal {
			p.txn++
		}
		g.next++
		return e
	}
	if r.IntN(20) == 0 {
		p.epoch++
		p.seq = 0
	}
	if r.IntN(15) == 0 {
		p.nrec = 1 + r.IntN(4)
	}
	if r.IntN(30) == 0 {
		p.n += 7 // a gap: records that failed
		p.sent += 7 * p.dsent
	}
	if r.IntN(40) == 0 {
		p.drift += sim.Time(r.IntN(5)) - 2
	}
	n := p.nrec
	b := model.Batch{PID: p.pid, Partition: 0, Epoch: p.epoch, FirstSeq: p.seq, Txn: p.txn, Transactional: p.txnal}
	if p.noPID {
		b.PID, b.Epoch, b.FirstSeq = model.NoProducerID, model.NoEpoch, model.NoSequence
	}
	for j := range n {
		id := model.RecordID{App: p.app, N: p.n}
		rec := model.Record{ID: id, Digest: model.Digest(id, 0), SentAt: p.sent, CreateTime: p.sent + p.drift}
		switch r.IntN(65) {
		case 60, 61, 62, 63, 64:
			rec.Resend = 1 + uint32(r.IntN(3)) // handed over again
		case 0:
			rec.Digest = model.Digest(id, 1)
		case 1:
			rec.Partition = 2
		case 2:
			rec.ID.App++
			rec.Digest = model.Digest(rec.ID, 0)
		case 3:
			rec.SentAt++
		case 4:
			rec.CreateTime--
		}
		if j == 0 && r.IntN(25) == 0 {
			rec.ID.N += 100 // out of the pattern across batches
			rec.Digest = model.Digest(rec.ID, 0)
		}
		b.Records = append(b.Records, rec)
		p.n += p.dn
		p.sent += p.dsent
	}
	if b.PID != model.NoProducerID {
		b.LastSeq = model.SeqSpace{}.Add(p.seq, int64(n-1))
		p.seq = model.SeqSpace{}.Add(p.seq, int64(n))
	} else {
		b.LastSeq = model.NoSequence
	}
	e := model.LogEntry{FirstOffset: g.next, LastOffset: g.next + int64(n) - 1, Batch: b, AppendedAt: g.now, CoordinatorEpoch: -1}
	if r.IntN(50) == 0 {
		e.CoordinatorEpoch = 3
	}
	g.next += int64(n)
	return e
}

// cloneEntry returns e with its own records slice (nil stays nil).
func cloneEntry(e model.LogEntry) model.LogEntry {
	e.Batch.Records = slices.Clone(e.Batch.Records)
	return e
}

// TestLogStoreAsSlice runs random appends (data batches, markers, odd
// records) and truncations on a logStore and on a plain []LogEntry kept
// as the partition kept it before, and compares every reading after
// every step: the whole log, each entry, its head and max timestamp,
// offset searches, iteration from every index. It also checks that the
// store is canonical: equal to a store that had the same entries
// appended and nothing truncated (runs and ats aside, which stay
// non-nil once appended to).
func TestLogStoreAsSlice(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			logStoreAsSlice(t, newLogGen(seed), 25)
		})
	}
}

// TestLogStoreCycles is TestLogStoreAsSlice on transactional units (k
// batches and a marker, a new epoch each) that fold into cyclic runs,
// truncated anywhere, in the middle of a unit too; and such a log of
// 300 units is one run.
func TestLogStoreCycles(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newLogGen(seed)
			g.k = 1 + int(seed%3)
			logStoreAsSlice(t, g, 15)
		})
	}
	for k := 1; k <= 3; k++ {
		var s, spare logStore
		off, n := int64(0), int64(0)
		for u := range int16(300) {
			for j := range int32(k) {
				var recs []model.Record
				for range 2 {
					id := model.RecordID{App: 1, N: n}
					recs = append(recs, model.Record{ID: id, Digest: model.Digest(id, 0), SentAt: sim.Time(n) * 1e6, CreateTime: sim.Time(n) * 1e6})
					n += 2
				}
				e := model.LogEntry{FirstOffset: off, LastOffset: off + 1, AppendedAt: sim.Time(off), CoordinatorEpoch: -1,
					Batch: model.Batch{PID: 7, Epoch: u, FirstSeq: 2 * j, LastSeq: 2*j + 1, Txn: int32(u), Transactional: true, Records: recs}}
				s.add(&e, &spare)
				off += 2
			}
			e := model.LogEntry{FirstOffset: off, LastOffset: off, AppendedAt: sim.Time(off), Marker: model.MarkerCommit,
				Batch: model.Batch{PID: 7, Epoch: u + 1, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Txn: int32(u), Transactional: true}}
			s.add(&e, &spare)
			off++
		}
		if len(s.runs) != 1 || len(s.cycs) != 1 || s.len() != 300*(k+1) {
			t.Fatalf("k=%d: 300 units: %d runs, %d cycles, %d entries", k, len(s.runs), len(s.cycs), s.len())
		}
	}
}

// logStoreAsSlice is TestLogStoreAsSlice's run of g's entries: 400
// steps, a truncation one step in every.
func logStoreAsSlice(t *testing.T, g *logGen, every int) {
	t.Helper()
	{
		{
			var s, spare logStore
			var want []model.LogEntry
			for step := range 400 {
				if g.rng.IntN(every) == 0 && g.next > 0 {
					off := g.rng.Int64N(g.next + 2)
					i, _ := slices.BinarySearchFunc(want, off, func(le model.LogEntry, off int64) int {
						if le.LastOffset < off {
							return -1
						}
						if le.FirstOffset > off {
							return 1
						}
						return 0
					})
					if got := s.search(off); got != i {
						t.Fatalf("step %d: search(%d) = %d, want %d", step, off, got, i)
					}
					want = slices.Clip(want[:i])
					s.truncate(i)
					g.next = 0
					if i > 0 {
						g.next = want[i-1].LastOffset + 1
					}
				} else {
					e := g.entry()
					want = append(want, cloneEntry(e))
					s.add(&e, &spare)
				}
				compareLogStore(t, step, &s, want)
			}
		}
	}
}

func compareLogStore(t *testing.T, step int, s *logStore, want []model.LogEntry) {
	t.Helper()
	if got := s.all(); !reflect.DeepEqual(got, want) {
		t.Fatalf("step %d: all() differs from the slice:\n got %+v\nwant %+v", step, got, want)
	}
	if s.len() != len(want) {
		t.Fatalf("step %d: len %d, want %d", step, s.len(), len(want))
	}
	for i := range want {
		w := want[i]
		if got := s.entry(i); !reflect.DeepEqual(got, w) {
			t.Fatalf("step %d: entry(%d) = %+v, want %+v", step, i, got, w)
		}
		h, ts := s.head(i)
		wh := w
		wh.Batch.Records = nil
		if !reflect.DeepEqual(h, wh) || ts != w.Batch.MaxTimestamp() {
			t.Fatalf("step %d: head(%d) = %+v, %d; want %+v, %d", step, i, h, ts, wh, w.Batch.MaxTimestamp())
		}
		if s.firstOffset(i) != w.FirstOffset || s.lastOffset(i) != w.LastOffset {
			t.Fatalf("step %d: offsets of %d: %d..%d, want %d..%d", step, i, s.firstOffset(i), s.lastOffset(i), w.FirstOffset, w.LastOffset)
		}
		for _, off := range []int64{w.FirstOffset, w.LastOffset} {
			if got := s.search(off); got != i {
				t.Fatalf("step %d: search(%d) = %d, want %d", step, off, got, i)
			}
		}
	}
	if n := len(want); n > 0 {
		i, j := step%n, (step*7)%(n+1)
		nrec := 0
		for k := i; k < j; k++ {
			nrec += len(want[k].Batch.Records)
		}
		if got := s.records(i, j); got != nrec {
			t.Fatalf("step %d: records(%d, %d) = %d, want %d", step, i, j, got, nrec)
		}
		if got := s.search(want[n-1].LastOffset + 1); got != n {
			t.Fatalf("step %d: search past the end = %d, want %d", step, got, n)
		}
		k := i
		for e, ts := range s.heads(i) {
			w := want[k]
			w.Batch.Records = nil
			if !reflect.DeepEqual(*e, w) || ts != want[k].Batch.MaxTimestamp() {
				t.Fatalf("step %d: heads(%d) at %d = %+v, want %+v", step, i, k, *e, w)
			}
			k++
		}
		if k != n {
			t.Fatalf("step %d: heads(%d) stopped at %d of %d", step, i, k, n)
		}
	}
	// Canonical: the same as the entries appended to an empty store.
	var fresh, spare logStore
	for i := range want {
		e := cloneEntry(want[i])
		fresh.add(&e, &spare)
	}
	if !slices.Equal(fresh.runs, s.runs) || !slices.Equal(fresh.ats, s.ats) || !reflect.DeepEqual(fresh.odd, s.odd) || !slices.Equal(fresh.cycs, s.cycs) {
		t.Fatalf("step %d: store not canonical:\n got %+v\nwant %+v", step, *s, fresh)
	}
	if (s.runs == nil) != (want == nil) || (s.ats == nil) != (want == nil) {
		t.Fatalf("step %d: nil-ness: runs %v ats %v, slice %v", step, s.runs == nil, s.ats == nil, want == nil)
	}
	// appendBelow: the entries below a cut, as the slice has them, into
	// buffers that a previous call left (and may be too small).
	if n := len(want); n > 0 {
		cut := want[step%n].LastOffset + int64(step%3) - 1
		var below []model.LogEntry
		for _, w := range want {
			if w.LastOffset < cut {
				below = append(below, w)
			}
		}
		stale := []model.LogEntry{{FirstOffset: -9}}
		got, recs := s.appendBelow(stale[:0], make([]model.Record, 1, 1+step%4), cut)
		if len(got) != len(below) || len(below) > 0 && !reflect.DeepEqual(got, below) {
			t.Fatalf("step %d: appendBelow(%d) = %+v, want %+v", step, cut, got, below)
		}
		if nrec := 1 + s.records(0, len(below)); len(recs) != nrec {
			t.Fatalf("step %d: appendBelow(%d) used %d records of its buffer, want %d", step, cut, len(recs), nrec)
		}
	}
}

// TestLogStoreCompact: a producer's batches that continue each other are
// one run, whatever their count, and keep no records; an odd record
// lists its batch's records aside and starts a new run.
func TestLogStoreCompact(t *testing.T) {
	var s, spare logStore
	mk := func(first int64, seq int32, n0 int64, nrec int) model.LogEntry {
		b := model.Batch{PID: 1, FirstSeq: seq, LastSeq: seq + int32(nrec) - 1}
		for j := range nrec {
			id := model.RecordID{App: 4, N: n0 + int64(j)*2}
			b.Records = append(b.Records, model.Record{ID: id, Digest: model.Digest(id, 0), SentAt: sim.Time(n0+int64(j)*2) * 1e6, CreateTime: sim.Time(n0+int64(j)*2)*1e6 + 5})
		}
		return model.LogEntry{FirstOffset: first, LastOffset: first + int64(nrec) - 1, Batch: b, AppendedAt: sim.Time(first) * 7, CoordinatorEpoch: -1}
	}
	for i := range int64(1000) {
		e := mk(i, int32(i), 2*i, 1)
		s.add(&e, &spare)
	}
	if len(s.runs) != 1 || s.odd != nil || s.runs[0].n != 1000 {
		t.Fatalf("1000 batches that continue each other: %d runs, %d odd records", len(s.runs), len(s.odd))
	}
	e := mk(1000, 1000, 2000, 1)
	e.Batch.Records[0].Digest++
	s.add(&e, &spare)
	e = mk(1001, 1001, 2002, 1)
	s.add(&e, &spare)
	if len(s.runs) != 3 || len(s.odd) != 1 {
		t.Fatalf("after an odd record: %d runs, %d odd records, want 3 and 1", len(s.runs), len(s.odd))
	}
	s.truncate(1000)
	if len(s.runs) != 1 || s.odd != nil || s.len() != 1000 {
		t.Fatalf("truncated to 1000: %d runs, odd %v, %d entries", len(s.runs), s.odd, s.len())
	}
	// Batches of 3 records with a stride of 2 between message numbers.
	var s3 logStore
	for i := range int64(100) {
		e := mk(3*i, int32(3*i), 6*i, 3)
		s3.add(&e, &spare)
	}
	if len(s3.runs) != 1 {
		t.Fatalf("100 batches of 3 records: %d runs", len(s3.runs))
	}
}

// TestLogStoreReaders: the partition's readers of its compact log (Log,
// EntryAt and entryAt, which carve records from the partition's slab,
// ReplicaLog.Read with and without a limit) give what a plain slice of
// the appended entries gives.
func TestLogStoreReaders(t *testing.T) {
	g := newLogGen(3)
	p := NewPartition(0, PartitionConfig{})
	rl := NewReplicaLog(p)
	var want []model.LogEntry
	for range 300 {
		e := g.entry()
		want = append(want, cloneEntry(e))
		if err := p.AppendReplica(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Log(); !reflect.DeepEqual(got, want) {
		t.Fatal("Log() differs from the entries appended")
	}
	for i, w := range want {
		for _, off := range []int64{w.FirstOffset, w.LastOffset} {
			if e := p.EntryAt(off); e == nil || !reflect.DeepEqual(*e, w) {
				t.Fatalf("EntryAt(%d) = %+v, want %+v", off, e, w)
			}
			if e, ok := p.FindEntry(off); !ok || !reflect.DeepEqual(e, w) || cap(e.Batch.Records) != len(e.Batch.Records) {
				t.Fatalf("entryAt(%d) = %+v, want %+v", off, e, w)
			}
		}
		for _, max := range []int{0, 1, 5} {
			got := rl.Read(w.FirstOffset, max, nil)
			n := len(want) - i
			if max > 0 {
				n = min(n, max)
			}
			if len(got) != n {
				t.Fatalf("Read(%d, %d): %d entries, want %d", w.FirstOffset, max, len(got), n)
			}
			for k := range got {
				if !reflect.DeepEqual(got[k].Entry, want[i+k]) || cap(got[k].Entry.Batch.Records) != len(got[k].Entry.Batch.Records) {
					t.Fatalf("Read(%d, %d)[%d] = %+v, want %+v", w.FirstOffset, max, k, got[k].Entry, want[i+k])
				}
			}
		}
	}
	if p.EntryAt(g.next) != nil || len(rl.Read(g.next, 0, nil)) != 0 {
		t.Fatal("a reading past the log end found entries")
	}
}
