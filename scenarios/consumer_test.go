package scenarios

import (
	"testing"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/world"
)

// pollCount is a reader that counts the records consumers' polls
// returned.
type pollCount struct{ records, polls int64 }

func (c *pollCount) Observe(o *model.Obs) {
	if o.Kind == model.ObsPoll {
		c.polls++
		c.records += o.N
	}
}
func (c *pollCount) Held() int64       { return 0 }
func (c *pollCount) End(*world.RunEnd) {}

// TestReadCommittedConsumerTxnlate: over txnlate at kafka.version=3.9,
// where the late EndTxn commits the running transaction early and INV-TXN
// finds aborted reads and torn transactions in the producer's log, a
// read_committed consumer reading the same partitions never returns a
// record of an aborted transaction, of an open one, or above the last
// stable offset (INV-READ), never moves its position back (INV-POS), and
// does read: 1,000 seeds (about 2 s), 100 with -short.
func TestReadCommittedConsumerTxnlate(t *testing.T) {
	sc, err := Lookup("txnlate")
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(1000)
	if testing.Short() {
		n = 100
	}
	var txnRuns, empty int
	for seed := uint64(1); seed <= n; seed++ {
		pc := &pollCount{}
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: append(kv("kafka.version", "3.9"), kv("consumer", "true", "isolation.level", "read_committed")...),
			Readers: []world.MakeReader{func(*world.Layout) world.Reader { return pc }}})
		f := fired(r)
		if f[check.InvRead] || f[check.InvPos] {
			t.Fatalf("seed %d: %v\nreproduce: %s", seed, r.Violations, r.Reproduce)
		}
		if f[check.InvTxn] {
			txnRuns++
		}
		if pc.records == 0 {
			empty++
		}
	}
	if txnRuns == 0 {
		t.Errorf("INV-TXN fired in none of %d seeds: the producer-side defect the consumer is held against did not happen", n)
	}
	if empty > 0 {
		t.Errorf("the consumer returned no record in %d of %d seeds", empty, n)
	}
	t.Logf("%d seeds: INV-TXN in %d, the consumer read in every one", n, txnRuns)
}
