package validate

import (
	"context"
	"fmt"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/internal/validate/groupapp"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// runGroupScenario runs a consumer-group scenario's real side
// (app.mode=exactly-once-v2 with franz-go's or sarama's application,
// exactly-once-groupid with sarama's): the resolved configuration and
// the plan become a groupapp.Spec, and its counts the compared Counts.
// The plan may pause instances only.
func runGroupScenario(ctx context.Context, spec RealSpec) (Counts, error) {
	cfg := spec.Resolved.Config
	pc := spec.Resolved.Producer
	client := groupapp.ClientFranzGo
	switch spec.Client {
	case "", ClientFranzGo:
	case ClientSarama:
		client = groupapp.ClientSarama
	default:
		return Counts{}, fmt.Errorf("a consumer-group application runs with franz-go or sarama: %w", ErrUnsupported)
	}
	groupIDOnly := cfg.App.Mode == params.AppExactlyOnceGroupID
	if groupIDOnly && client != groupapp.ClientSarama {
		return Counts{}, fmt.Errorf("offsets with the group id alone run with sarama only (kgo's GroupTransactSession always sends the group metadata): %w", ErrUnsupported)
	}
	if spec.Bootstrap != "" {
		return Counts{}, fmt.Errorf("a consumer-group application runs against kfake only (-bootstrap): %w", ErrUnsupported)
	}
	gs := groupapp.Spec{Instances: cfg.App.Instances, Partitions: cfg.App.InputPartitions, Records: int(cfg.App.Records),
		PerTxn: int(pc.TransactionRecords), Interval: cfg.App.SendInterval, SessionTimeout: cfg.App.SessionTimeout,
		RebalanceTimeout: groupRebalanceTimeout, TransactionTimeout: pc.TransactionTimeout, Scale: spec.Scale,
		Deadline: spec.Deadline, Seed: spec.Seed, Encode: func(n int64) []byte { return payload(0, n) }, Decode: decodeN, Logger: debugLogger,
		Client: client, GroupIDOnly: groupIDOnly}
	for _, a := range spec.Plan.Actions {
		p, ok := a.Action.(faults.Pause)
		if !ok {
			return Counts{}, fmt.Errorf("plan action %q in a consumer-group application (only pauses are mapped): %w", string(a.Action.AppendTo(nil)), ErrUnsupported)
		}
		i, err := instanceIndex(p.Node, gs.Instances)
		if err != nil {
			return Counts{}, err
		}
		gs.Pauses = append(gs.Pauses, groupapp.Pause{Instance: i, At: a.At, For: p.For})
	}
	gc, err := groupapp.Run(ctx, gs)
	if err != nil {
		return Counts{}, err
	}
	if !gc.Finished {
		return Counts{}, fmt.Errorf("the real group application did not commit its whole input within %v", gs.Deadline)
	}
	c := Counts{Sent: gc.Input, Acked: gc.Unique, Failed: gc.Lost, Appended: gc.Output + gc.Aborted, Duplicates: gc.Duplicates,
		LostAcked: 0, Fenced: gc.Fenced, TxnAborted: gc.Aborts}
	// The group fenced the zombie: kgo's GroupTransactSession.End aborts
	// without committing when a heartbeat's refusal came first, so any
	// refusal of the member counts; sarama commits whatever its
	// heartbeat said, so only a refused TxnOffsetCommit does (none with
	// the group id alone, whose generation is not checked).
	if refused := gc.MemberRefused; client == groupapp.ClientSarama && gc.CommitsRefused > 0 || client != groupapp.ClientSarama && refused > 0 {
		c.GroupFenced = 1
	}
	return c, nil
}

// groupRebalanceTimeout is the instances' max.poll.interval.ms, Kafka's
// default (ConsumerConfig, 300000 ms), which the JoinGroup carries as the
// rebalance timeout.
const groupRebalanceTimeout = 300 * time.Second

// instanceIndex returns the index of instance node name ("p1" is 0).
func instanceIndex(name string, n int) (int, error) {
	for i := 0; i < n; i++ {
		if world.InstanceName(i) == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("plan node %s is not an instance of the application (p1..p%d): %w", name, n, ErrUnsupported)
}

// decodeN reads a record's message number back from its value.
func decodeN(v []byte) (int64, bool) {
	id, ok := parsePayload(v)
	return id.N, ok
}
