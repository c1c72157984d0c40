package check

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// BenchmarkRetained is the checker's memory per record for a big run
// shaped like the scenario ackloss without loss: each record sent, alone
// in an idempotent batch appended at the next offset, and acknowledged.
// Each batch's records are a new slice, as the world's are; the memory
// the suite still holds after the run, before Finish, is reported per
// record (retainedB/record). The figure is the checker's share of a run's
// memory, what the logs the brokers keep add to it.
func BenchmarkRetained(b *testing.B) {
	for _, n := range []int{100_000} {
		b.Run("records="+strconv.Itoa(n), func(b *testing.B) {
			var per float64
			for range b.N {
				var m0, m1 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m0)
				s := NewSuite(Config{})
				var o model.Obs
				for i := range n {
					at := sim.Time(i) * 1000
					id := model.RecordID{App: 0, N: int64(i)}
					o = model.Obs{Kind: model.ObsAppSend, At: at, Node: -1, App: 0}
					s.Observe(&o)
					rec := []model.Record{{ID: id, Digest: model.Digest(id, 0), SentAt: at, CreateTime: at}}
					o = model.Obs{Kind: model.ObsVerdict, At: at + 1, Node: 1, Peer: 0, N: int64(i),
						Batch:  model.Batch{PID: 1000, FirstSeq: int32(i), LastSeq: int32(i), Records: rec},
						Result: model.AppendResult{FirstOffset: int64(i), LastOffset: int64(i)}}
					s.Observe(&o)
					o = model.Obs{Kind: model.ObsOutcome, At: at + 2, Outcome: model.Outcome{ID: id, Offset: int64(i), SentAt: at, At: at + 2, Digest: rec[0].Digest}}
					s.Observe(&o)
				}
				o = model.Obs{Kind: model.ObsRunEnd, At: sim.Time(n) * 1000, Text: "drained"}
				s.Observe(&o)
				runtime.GC()
				runtime.ReadMemStats(&m1)
				per = float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / float64(n)
				if _, vs := s.Finish(); len(vs) != 0 {
					b.Fatal(vs)
				}
				runtime.KeepAlive(s)
			}
			b.ReportMetric(per, "retainedB/record")
		})
	}
}
