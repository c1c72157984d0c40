package groupapp

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/idemsim/idemsim/internal/leaktest"
)

// saramaZombie is TestRealGroupZombie's run with sarama's application.
func saramaZombie(groupIDOnly bool) Spec {
	return Spec{Instances: 2, Partitions: 2, Records: 200, PerTxn: 10, Interval: 100 * time.Millisecond,
		SessionTimeout: 10 * time.Second, RebalanceTimeout: 20 * time.Second, TransactionTimeout: 300 * time.Second,
		Pauses: []Pause{{Instance: 0, At: 2 * time.Second, For: 30 * time.Second}},
		Scale:  0.05, Deadline: 40 * time.Second, Seed: 1, Encode: encode, Decode: decode,
		Client: ClientSarama, GroupIDOnly: groupIDOnly}
}

// TestRealGroupSarama runs sarama's application as TestRealGroupZombie
// runs kgo's: two instances over two input partitions, instance 0
// paused past the session timeout while its transaction is open.
//   - With the consumer's group metadata (KIP-447,
//     AddOffsetsToTxnWithGroupMetadata) the zombie's TxnOffsetCommit is
//     refused and its transaction aborts: every input record is in the
//     committed output exactly once.
//   - With the group id alone (AddOffsetsToTxn(offsets, groupId), the
//     deprecated form) nothing refuses its commit: its transaction
//     commits the records instance 1 wrote again from the last committed
//     offset, and the committed output has duplicates, none lost.
//
// No goroutine is left behind.
func TestRealGroupSarama(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs of a few seconds")
	}
	// The two runs go at once (they mostly wait); the goroutines are
	// counted before and after both.
	before := runtime.NumGoroutine()
	t.Run("runs", func(t *testing.T) {
		for _, groupIDOnly := range []bool{false, true} {
			t.Run(fmt.Sprintf("groupIDOnly=%v", groupIDOnly), func(t *testing.T) {
				t.Parallel()
				c, err := Run(context.Background(), saramaZombie(groupIDOnly))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("group id only %v: %+v", groupIDOnly, c)
				if !c.Finished {
					t.Fatalf("group id only %v: the input was not all committed before the deadline: %+v", groupIDOnly, c)
				}
				if c.Lost != 0 || c.Unique != c.Input {
					t.Errorf("group id only %v: %d distinct of %d input records committed, %d lost", groupIDOnly, c.Unique, c.Input, c.Lost)
				}
				if groupIDOnly {
					if c.Duplicates == 0 {
						t.Errorf("group id only: no duplicate in the committed output (%d records): the zombie's commit should have been accepted", c.Output)
					}
				} else {
					if c.Duplicates != 0 {
						t.Errorf("group metadata: %d duplicates in the committed output, want 0", c.Duplicates)
					}
					if c.Aborts == 0 || c.MemberRefused == 0 {
						t.Errorf("group metadata: %d aborts, %d refusals (errors %v): the zombie should have been refused and aborted", c.Aborts, c.MemberRefused, c.Errors)
					}
				}
			})
		}
	})
	leaktest.Check(t, before, "the runs")
}
