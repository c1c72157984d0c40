package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

func init() {
	register(kind{verb: "abort-transaction", rank: 160, parse: parseAbortTxn,
		example: "20s abort-transaction a1 partition 0 producer 1 epoch 0 coordinator-epoch 0"})
}

// AbortTxn is an operator's "kafka-transactions.sh abort" run from the
// admin node (model/admin, KIP-664, Kafka 3.0.0):
//
//	abort-transaction ADMIN partition K
//	abort-transaction ADMIN partition K start-offset N
//	abort-transaction ADMIN partition K producer PID epoch E coordinator-epoch C
//
// The first form is "find-hanging --partition K" followed by an abort of
// each hanging transaction it finds: the admin describes the partition's
// producers (DescribeProducers to the leader), looks the open
// transactions' producer ids up at the coordinator (ListTransactions,
// DescribeTransactions), and aborts those the coordinator does not hold
// open with the partition; so the plan author need not know the producer
// id or epoch, which the partition's state gives at the time. The second
// is "abort --start-offset N": the open transaction that starts at
// offset N, found by DescribeProducers. The third is "abort
// --producer-id --producer-epoch --coordinator-epoch": the marker is
// written at once. Each abort is one WriteTxnMarkers with an ABORT marker,
// sent by the admin to the partition's leader, as Admin.abortTransaction
// does.
//
// It is an operator's action, not a fault: the generator and the -explore
// menu never draw it. It has no knob to weaken it (an abort has no
// degree); a shrinker drops it or keeps it.
type AbortTxn struct {
	// Admin is the admin node (a1).
	Admin string
	// Partition is the topic partition, >= 0.
	Partition int32
	// StartOffset is the start-offset form's offset, -1 otherwise.
	StartOffset int64
	// Producer is the explicit form's producer id, -1 otherwise; Epoch
	// and CoordinatorEpoch go with it.
	Producer         int64
	Epoch            int16
	CoordinatorEpoch int32
}

func (AbortTxn) Verb() string { return "abort-transaction" }

func (a AbortTxn) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = appendNode(b, a.Admin)
	b = append(b, " partition "...)
	b = strconv.AppendInt(b, int64(a.Partition), 10)
	switch {
	case a.Producer >= 0:
		b = append(b, " producer "...)
		b = strconv.AppendInt(b, a.Producer, 10)
		b = append(b, " epoch "...)
		b = strconv.AppendInt(b, int64(a.Epoch), 10)
		b = append(b, " coordinator-epoch "...)
		b = strconv.AppendInt(b, int64(a.CoordinatorEpoch), 10)
	case a.StartOffset >= 0:
		b = append(b, " start-offset "...)
		b = strconv.AppendInt(b, a.StartOffset, 10)
	}
	return b
}

func (a AbortTxn) Nodes() []string     { return []string{a.Admin} }
func (a AbortTxn) Apply(t Target)      { t.AbortTransaction(a) }
func (AbortTxn) Span() Span            { return Instant }
func (AbortTxn) Closes(Action) bool    { return false }
func (AbortTxn) Weaken() (Knob, bool)  { return Knob{}, false }
func (a AbortTxn) Equal(b Action) bool { c, ok := b.(AbortTxn); return ok && a == c }

// Check checks that the node is the world's admin node and that the
// topic has the partition.
func (a AbortTxn) Check(n Nodes) error {
	if !slices.Contains(n.Admins, a.Admin) {
		return fmt.Errorf("abort-transaction: %s is not an admin node (admin nodes: %s)", a.Admin, strings.Join(n.Admins, ", "))
	}
	if a.Partition >= n.Partitions {
		return fmt.Errorf("abort-transaction: the topic has no partition %d (allowed: 0..%d)", a.Partition, n.Partitions-1)
	}
	return nil
}

const abortTxnUsage = "want \"abort-transaction ADMIN partition K [start-offset N | producer PID epoch E coordinator-epoch C]\", e.g. 20s abort-transaction a1 partition 0"

// parseAbortTxn reads "ADMIN partition K [start-offset N | producer PID
// epoch E coordinator-epoch C]".
func parseAbortTxn(args []string) (Action, error) {
	a := AbortTxn{StartOffset: -1, Producer: -1}
	if len(args) != 3 && len(args) != 5 && len(args) != 9 || args[1] != "partition" {
		return nil, fmt.Errorf("%s", abortTxnUsage)
	}
	var err error
	if a.Admin, err = parseNode(args[0]); err != nil {
		return nil, fmt.Errorf("abort-transaction: %v", err)
	}
	num := func(key, s string, bits int) (int64, error) {
		v, err := strconv.ParseInt(s, 10, bits)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("abort-transaction: %s %q is not allowed (allowed: an integer >= 0 of %d bits)", key, s, bits)
		}
		return v, nil
	}
	k, err := num("partition", args[2], 32)
	if err != nil {
		return nil, err
	}
	a.Partition = int32(k)
	switch len(args) {
	case 5:
		if args[3] != "start-offset" {
			return nil, fmt.Errorf("%s", abortTxnUsage)
		}
		if a.StartOffset, err = num("start-offset", args[4], 64); err != nil {
			return nil, err
		}
	case 9:
		if args[3] != "producer" || args[5] != "epoch" || args[7] != "coordinator-epoch" {
			return nil, fmt.Errorf("%s", abortTxnUsage)
		}
		if a.Producer, err = num("producer", args[4], 64); err != nil {
			return nil, err
		}
		e, err := num("epoch", args[6], 16)
		if err != nil {
			return nil, err
		}
		c, err := num("coordinator-epoch", args[8], 32)
		if err != nil {
			return nil, err
		}
		a.Epoch, a.CoordinatorEpoch = int16(e), int32(c)
	}
	return a, nil
}
