package groupapp

import (
	"context"
	"github.com/idemsim/idemsim/internal/leaktest"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// TestRealGroupZombie runs the real KIP-447 application: two instances of
// franz-go's GroupTransactSession over two input partitions, instance 0
// paused past the session timeout while its transaction is open. The
// group rebalances its partition to instance 1, instance 0's commit is
// refused on the group when it resumes (its TxnOffsetCommit, or first a
// heartbeat, after which GroupTransactSession.End aborts without
// committing), and its transaction aborts: every input record is in the
// committed output exactly once, records were aborted, and the refusal
// is counted. No goroutine is left behind.
func TestRealGroupZombie(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run of a few seconds")
	}
	before := runtime.NumGoroutine()
	spec := Spec{Instances: 2, Partitions: 2, Records: 200, PerTxn: 10, Interval: 100 * time.Millisecond,
		SessionTimeout: 10 * time.Second, RebalanceTimeout: 20 * time.Second, TransactionTimeout: 300 * time.Second,
		Pauses: []Pause{{Instance: 0, At: 2 * time.Second, For: 30 * time.Second}},
		Scale:  0.05, Deadline: 40 * time.Second, Seed: 1, Encode: encode, Decode: decode}
	c, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", c)
	if !c.Finished {
		t.Fatalf("the input was not all committed before the deadline: %+v", c)
	}
	if c.Duplicates != 0 || c.Lost != 0 || c.Unique != c.Input {
		t.Errorf("committed output: %d records, %d distinct, %d duplicates, %d lost of %d; want each input record once", c.Output, c.Unique, c.Duplicates, c.Lost, c.Input)
	}
	if c.Aborts == 0 || c.Aborted == 0 {
		t.Errorf("the paused instance's transaction did not abort: %d aborts, %d aborted records", c.Aborts, c.Aborted)
	}
	if c.MemberRefused == 0 {
		t.Errorf("the group never refused the paused member: errors %v", c.Errors)
	}
	leaktest.Check(t, before, "the run")
}

// encode and decode are the test's record values: the input number in
// decimal.
func encode(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

func decode(v []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}
