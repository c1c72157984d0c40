package storage

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestNextExpiryKeptAcrossAppends: with many producer ids on a partition
// (rotated ones, say), an append by a producer that is not the oldest
// keeps NextExpiry's cached answer instead of invalidating it, so a broker
// asking after every append does not rescan every entry (epochx with
// epoch.bits=2 went quadratic in the records); an append by the oldest
// invalidates it, and the answer is always the oldest entry's timestamp
// plus producer.id.expiration.ms.
func TestNextExpiryKeptAcrossAppends(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	at := func(ms int64) sim.Time { return sim.Time(ms * 1e6) }
	stamped := func(pid model.ProducerID, first int32, ms int64) model.Batch {
		b := stateTestBatch(pid, 0, first, 1)
		b.Records[0].CreateTime = at(ms)
		return b
	}
	const n = 100
	for i := range n {
		if r := p.Append(at(int64(i)), stamped(model.ProducerID(i), 0, int64(i))); r.Err != model.ErrNone {
			t.Fatal(r.Err)
		}
	}
	want := func() sim.Time {
		min, ok := sim.Time(0), false
		for _, id := range p.ProducerIDs() {
			if e := p.Producer(id); !ok || e.LastTimestamp < min {
				min, ok = e.LastTimestamp, true
			}
		}
		return min.Add(p.cfg.expiration())
	}
	if got, ok := p.NextExpiry(); !ok || got != want() {
		t.Fatalf("NextExpiry %v %v, want %v", got, ok, want())
	}
	// The newest producer appends again: the oldest is unchanged.
	if r := p.Append(at(200), stamped(n-1, 1, 200)); r.Err != model.ErrNone {
		t.Fatal(r.Err)
	}
	if !p.expiry.valid {
		t.Error("an append by a producer that is not the oldest invalidated NextExpiry's answer")
	}
	if got, _ := p.NextExpiry(); got != want() {
		t.Fatalf("NextExpiry %v, want %v", got, want())
	}
	// The oldest appends: the next oldest gives the answer.
	if r := p.Append(at(300), stamped(0, 1, 300)); r.Err != model.ErrNone {
		t.Fatal(r.Err)
	}
	if p.expiry.valid {
		t.Error("an append by the oldest producer kept a stale answer")
	}
	if got, _ := p.NextExpiry(); got != want() || got != at(1).Add(p.cfg.expiration()) {
		t.Fatalf("NextExpiry %v, want %v", got, want())
	}
}
