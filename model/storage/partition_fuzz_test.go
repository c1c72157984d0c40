package storage

import (
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// FuzzAppend drives one partition with operations decoded from the input,
// 5 bytes each: kind, pid, epoch, first sequence, count/flags. Kinds are
// client appends (most), markers, clean and unclean restarts, explicit
// snapshots and truncations (TruncateTo up to 7 offsets below the log
// end). A batch's records continue its producer's (consecutive message
// numbers, the world's digests), so that a transaction's batches and
// its marker repeating fold into the log's cyclic runs. Producer expiry is left out on purpose: it legitimately lets
// a retry be written twice (KIP-360's documented hole).
//
// Oracle, after every operation: nothing panics; the log's offsets are
// dense from 0 and increasing, and the log end offset follows the last
// entry; an accepted batch took exactly the next offsets; an error or
// duplicate appended nothing; DUPLICATE_SEQUENCE_NUMBER and
// UNKNOWN_PRODUCER_ID never occur; and the log never holds two data
// batches with the same (pid, epoch, first seq, last seq); the log's
// store is what appending its entries to an empty store makes (canonical).
func FuzzAppend(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 3, 0, 0, 0, 4, 3, 0, 0, 0, 0, 3})                                              // in order, then a retry
	f.Add([]byte{0, 1, 1, 0x81, 3, 0, 1, 1, 0, 0, 5, 1, 2, 0, 0, 0, 1, 1, 1, 0})                            // wrap, marker bump, stale epoch
	f.Add([]byte{0, 0, 0, 0, 0x10, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0})                            // txn, non-txn, clean restart, retry
	f.Add([]byte{0, 2, 0, 0, 1, 0, 2, 0, 2, 1, 8, 0, 0, 0, 0, 0, 2, 0, 4, 1, 7, 0, 0, 0, 0, 0, 2, 0, 2, 1}) // snapshot, unclean restart
	// Transactions of two batches of two records and a commit, repeated
	// (a cyclic run), then truncated inside a unit and appended again.
	f.Add([]byte{0, 1, 0, 0, 0x11, 0, 1, 0, 2, 0x11, 5, 1, 0, 0, 0, 0, 1, 0, 4, 0x11, 0, 1, 0, 6, 0x11, 5, 1, 0, 0, 0,
		0, 1, 0, 8, 0x11, 0, 1, 0, 10, 0x11, 5, 1, 0, 0, 0, 9, 1, 0, 2, 0, 0, 1, 0, 10, 0x11, 5, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		space := model.SeqSpace{}
		p := NewPartition(0, PartitionConfig{SnapshotEvery: 3, Window: 5})
		type key struct {
			pid         model.ProducerID
			epoch       int16
			first, last int32
		}
		seen := make(map[key]int64)
		nextN := map[model.ProducerID]int64{}
		checked := 0
		var now sim.Time
		for i := 0; i+5 <= len(in); i += 5 {
			op := in[i : i+5]
			now += 1e6
			pid := model.ProducerID(op[1] % 3)
			epoch := int16(op[2] % 4)
			first := int32(op[3] & 0x7f)
			if op[3]&0x80 != 0 {
				first = space.Max() - int32(op[3]&0x7f)
			}
			if op[3] == 0xff {
				first = -1
			}
			n := int64(op[4]%4) + 1
			txn := op[4]&0x10 != 0
			leo := p.LogEndOffset()
			switch k := op[0] % 10; {
			case k < 5:
				last := first
				if first >= 0 {
					last = space.Add(first, n-1)
				}
				b := model.Batch{PID: pid, Epoch: epoch, FirstSeq: first, LastSeq: last, Transactional: txn, Records: make([]model.Record, n)}
				for j := range b.Records {
					id := model.RecordID{App: int32(pid), N: nextN[pid]}
					nextN[pid]++
					b.Records[j] = model.Record{ID: id, Digest: model.Digest(id, 0), SentAt: sim.Time(id.N) * 1e6, CreateTime: sim.Time(id.N) * 1e6}
				}
				var o AppendOptions
				if op[4]&0x20 != 0 {
					o.Verification = model.ErrInvalidTxnState
				}
				r := p.AppendWith(now, b, o)
				switch {
				case r.Err == model.ErrDuplicateSequenceNumber || r.Err == model.ErrUnknownProducerID:
					t.Fatalf("op %d: legacy error %v", i/5, r.Err)
				case r.Err != model.ErrNone || r.Duplicate:
					if p.LogEndOffset() != leo {
						t.Fatalf("op %d: %v dup=%v moved log end %d -> %d", i/5, r.Err, r.Duplicate, leo, p.LogEndOffset())
					}
				default:
					if r.FirstOffset != leo || r.LastOffset != leo+n-1 || p.LogEndOffset() != leo+n {
						t.Fatalf("op %d: accepted at %d..%d, log end %d -> %d", i/5, r.FirstOffset, r.LastOffset, leo, p.LogEndOffset())
					}
				}
			case k < 7:
				m := model.MarkerCommit
				if txn {
					m = model.MarkerAbort
				}
				r := p.AppendMarker(now, pid, epoch, int32(op[3]%3), m)
				if r.Err == model.ErrNone && (r.FirstOffset != leo || p.LogEndOffset() != leo+1) {
					t.Fatalf("op %d: marker at %d, log end %d -> %d", i/5, r.FirstOffset, leo, p.LogEndOffset())
				}
				if r.Err != model.ErrNone && p.LogEndOffset() != leo {
					t.Fatalf("op %d: rejected marker moved the log end", i/5)
				}
			case k < 8:
				p.Restart(now, true)
			case k < 9:
				p.Restart(now, false)
			case op[1]&1 == 0:
				p.Snapshot()
			default:
				to := max(leo-int64(op[3]%8), 0)
				p.TruncateTo(now, to)
				for k, off := range seen {
					if off >= p.LogEndOffset() {
						delete(seen, k)
					}
				}
				leo = p.LogEndOffset()
			}
			if p.LogEndOffset() != leo && p.LogEndOffset() < leo {
				t.Fatalf("op %d: log end went backwards", i/5)
			}
			// Check the new log entries.
			log := p.Log()
			checked = min(checked, len(log))
			var fresh, spare logStore
			for j := range log {
				e := cloneEntry(log[j])
				fresh.add(&e, &spare)
			}
			if !slices.Equal(fresh.runs, p.log.runs) || !slices.Equal(fresh.cycs, p.log.cycs) || !slices.Equal(fresh.ats, p.log.ats) {
				t.Fatalf("op %d: log store not canonical:\n got %+v\nwant %+v", i/5, p.log, fresh)
			}
			for ; checked < len(log); checked++ {
				le := log[checked]
				want := int64(0)
				if checked > 0 {
					want = log[checked-1].LastOffset + 1
				}
				if le.FirstOffset != want || le.LastOffset < le.FirstOffset {
					t.Fatalf("entry %d: offsets %d..%d, want first %d", checked, le.FirstOffset, le.LastOffset, want)
				}
				if le.Marker != model.MarkerNone {
					continue
				}
				k := key{le.Batch.PID, le.Batch.Epoch, le.Batch.FirstSeq, le.Batch.LastSeq}
				if prev, dup := seen[k]; dup {
					t.Fatalf("log holds pid %d e%d [%d,%d] twice, at %d and %d", k.pid, k.epoch, k.first, k.last, prev, le.FirstOffset)
				}
				seen[k] = le.FirstOffset
			}
			if len(log) > 0 && log[len(log)-1].LastOffset+1 != p.LogEndOffset() {
				t.Fatalf("log end %d does not follow the last entry", p.LogEndOffset())
			}
		}
	})
}
