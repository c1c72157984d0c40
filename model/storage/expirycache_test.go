package storage

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// freshExpiry is NextExpiry computed from the entries, without the cache.
func freshExpiry(p *Partition) (sim.Time, bool) {
	next, ok := sim.Time(0), false
	for _, e := range p.producers {
		if e.TxnFirstOffset < 0 && (!ok || e.LastTimestamp < next) {
			next, ok = e.LastTimestamp, true
		}
	}
	return next.Add(p.cfg.expiration()), ok
}

// TestNextExpiryCache: NextExpiry's cached answer is the one the entries
// give, asked after every step of random histories of appends (idempotent
// and transactional, from three producers, with timestamps that jump back
// and forth), markers, expiries, single expiries, dropped state, clean and
// unclean restarts and truncations, on partitions of every reset.
func TestNextExpiryCache(t *testing.T) {
	p := &Partition{}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 11))
		p.Reset(0, PartitionConfig{ProducerIDExpiration: time.Duration(1+rng.IntN(50)) * time.Millisecond})
		seqs := map[model.ProducerID]int32{}
		now := sim.Time(0)
		for i := range 400 {
			now += sim.Time(rng.IntN(3)) * sim.Time(time.Millisecond)
			pid := model.ProducerID(1 + rng.IntN(3))
			switch op := rng.IntN(20); {
			case op < 10:
				b := mk(model.SeqSpace{}, pid, 0, seqs[pid], seqs[pid], op < 3)
				b = stamped(b, now-sim.Time(rng.IntN(20))*sim.Time(time.Millisecond))
				if r := p.Append(now, b); r.Err == model.ErrNone && !r.Duplicate {
					seqs[pid]++
				}
			case op < 13:
				m := model.MarkerCommit
				if op == 12 {
					m = model.MarkerAbort
				}
				p.AppendMarker(now, pid, 0, 0, m)
			case op < 15:
				p.ExpireProducers(now)
			case op == 15:
				p.ExpireProducer(pid)
			case op == 16:
				p.DropState()
			case op == 17:
				p.Restart(now, rng.IntN(2) == 0)
			case op == 18:
				p.TruncateTo(now, int64(rng.IntN(int(p.LogEndOffset())+1)))
			default:
				p.Snapshot()
			}
			if len(p.producers) == 0 {
				clear(seqs) // expired or dropped: sequences start over
			}
			gotAt, gotOK := p.NextExpiry()
			wantAt, wantOK := freshExpiry(p)
			if gotAt != wantAt || gotOK != wantOK {
				t.Fatalf("seed %d step %d: NextExpiry = %v %v, the entries give %v %v", seed, i, gotAt, gotOK, wantAt, wantOK)
			}
		}
	}
}
