package groupapp

import (
	"context"
	"fmt"
	stdnet "net"
	"strconv"
	"sync"
	"time"

	"github.com/IBM/sarama"
	metrics "github.com/rcrowley/go-metrics"

	"github.com/idemsim/idemsim/scenarios/world"
)

// sarama's consume-transform-produce application: one ConsumerGroup and
// one transactional AsyncProducer per instance (IBM/sarama v1.61.1). A
// claim's loop takes up to Spec.PerTxn records that are ready, and one
// transaction at a time per instance (the producer is shared by the
// instance's claims) writes them and commits their offsets: with the
// consumer's group metadata (AddOffsetsToTxnWithGroupMetadata, KIP-447),
// or with the group id alone (Spec.GroupIDOnly: AddOffsetsToTxn(offsets,
// groupId), the deprecated sendOffsetsToTransaction(offsets, groupId),
// whose TxnOffsetCommit carries generation −1 and no member id,
// consumer_group_metadata.go NewConsumerGroupMetadata). sarama sends the
// offsets with the commit (transaction_manager.go, publishOffsetsToTxn
// in the end of the transaction), as kgo's End does. A failed commit
// aborts and ends the claim, which ends the group session (sarama's
// ConsumeClaim contract: one claim's exit ends the session); the next
// session reads the committed offsets again.

// sarama's metrics start a process-wide ticker goroutine (go-metrics'
// meter arbiter) that never ends; the application reads none of them.
func init() { metrics.UseNilMetrics = true }

// saramaInst is one instance of the sarama application.
type saramaInst struct {
	g     *groupRun
	i     int
	prod  sarama.AsyncProducer
	group sarama.ConsumerGroup
	// ctx is the run's (a transaction that began ends within it); mu
	// keeps the instance to one transaction at a time.
	ctx context.Context
	mu  sync.Mutex
	wg  sync.WaitGroup
}

// saramaDial sends every connection of an instance through its proxy.
type saramaDial struct{ broker, via string }

func (d saramaDial) Dial(network, addr string) (stdnet.Conn, error) {
	if addr != d.broker && addr != d.via {
		return nil, fmt.Errorf("groupapp: refusing to dial %s, which is not the run's broker", addr)
	}
	return (&stdnet.Dialer{Timeout: time.Second}).Dial(network, d.via)
}

// saramaConfig is instance i's configuration: Kafka 3.6 (the classic
// transaction protocol), an idempotent transactional producer with one
// request in flight (sarama's rule), read_committed fetches from the
// oldest offset, no automatic offset commits.
func (g *groupRun) saramaConfig(i int) *sarama.Config {
	s := &g.spec
	c := sarama.NewConfig()
	c.Version = sarama.V3_6_0_0
	c.ClientID = "idemsim-" + world.InstanceName(i)
	c.Net.Proxy.Enable = true
	c.Net.Proxy.Dialer = saramaDial{broker: g.broker, via: g.proxies[i].Addr()}
	c.Net.DialTimeout = time.Second
	c.Net.MaxOpenRequests = 1
	c.Metadata.RefreshFrequency = time.Second
	c.Consumer.Group.Session.Timeout = max(g.d(s.SessionTimeout), 100*time.Millisecond)
	c.Consumer.Group.Heartbeat.Interval = max(g.d(s.SessionTimeout)/3, 20*time.Millisecond)
	c.Consumer.Group.Rebalance.Timeout = max(g.d(s.RebalanceTimeout), 200*time.Millisecond)
	c.Consumer.Group.Rebalance.Retry.Backoff = 20 * time.Millisecond
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.AutoCommit.Enable = false
	c.Consumer.IsolationLevel = sarama.ReadCommitted
	c.Consumer.MaxWaitTime = 50 * time.Millisecond
	c.Consumer.Return.Errors = false
	c.Producer.Idempotent = true
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Retry.Max = 10
	c.Producer.Retry.Backoff = 20 * time.Millisecond
	c.Producer.Return.Successes = false
	c.Producer.Return.Errors = true
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Producer.Transaction.ID = "idemsim-" + strconv.Itoa(i)
	c.Producer.Transaction.Timeout = max(g.d(s.TransactionTimeout), time.Second)
	c.Producer.Transaction.Retry.Backoff = 20 * time.Millisecond
	return c
}

// newSaramaInst makes instance i's producer and consumer group.
func (g *groupRun) newSaramaInst(ctx context.Context, i int) (*saramaInst, error) {
	addrs := []string{g.broker}
	prod, err := sarama.NewAsyncProducer(addrs, g.saramaConfig(i))
	if err != nil {
		return nil, fmt.Errorf("sarama producer: %w", err)
	}
	group, err := sarama.NewConsumerGroup(addrs, groupName, g.saramaConfig(i))
	if err != nil {
		prod.Close()
		return nil, fmt.Errorf("sarama consumer group: %w", err)
	}
	si := &saramaInst{g: g, i: i, prod: prod, group: group, ctx: ctx}
	si.wg.Add(1)
	go func() {
		// A record's failure shows in the commit's error; the channel is
		// drained so that the producer never blocks on it.
		defer si.wg.Done()
		for range prod.Errors() {
		}
	}()
	return si, nil
}

// run consumes in group sessions until pollCtx ends.
func (si *saramaInst) run(pollCtx context.Context) {
	for pollCtx.Err() == nil {
		if until := si.g.pausedUntil(si.i, time.Now()); !until.IsZero() {
			if SleepUntil(si.ctx, until) != nil {
				return
			}
			continue
		}
		if err := si.group.Consume(pollCtx, []string{groupInput}, si); err != nil && pollCtx.Err() == nil {
			if SleepUntil(pollCtx, time.Now().Add(20*time.Millisecond)) != nil {
				return
			}
		}
	}
}

// close ends the instance's consumer group and producer.
func (si *saramaInst) close() {
	si.group.Close()
	si.prod.Close() // closes Errors, which ends the drain
	si.wg.Wait()
}

func (si *saramaInst) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (si *saramaInst) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim takes the claim's records in transactions of up to
// Spec.PerTxn, each of the records that are ready after its first.
func (si *saramaInst) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	msgs := claim.Messages()
	for {
		var batch []*sarama.ConsumerMessage
		select {
		case m, ok := <-msgs:
			if !ok {
				return nil
			}
			batch = append(batch, m)
		case <-sess.Context().Done():
			return nil
		}
	fill:
		for len(batch) < si.g.spec.PerTxn {
			select {
			case m, ok := <-msgs:
				if !ok {
					break fill
				}
				batch = append(batch, m)
			default:
				break fill
			}
		}
		// A pause that starts between transactions holds the instance
		// before the next one begins, as kgo's loop waits before its
		// next poll.
		if until := si.g.pausedUntil(si.i, time.Now()); !until.IsZero() {
			if SleepUntil(si.ctx, until) != nil {
				return nil
			}
		}
		if sess.Context().Err() != nil {
			// The session ended (a rebalance, or the heartbeat found
			// the member gone) while records were ready: the select
			// above picks among ready cases at random, and a member
			// no longer in the group processes nothing more.
			return nil
		}
		if !si.transact(sess, batch) {
			return nil
		}
	}
}

// transact writes batch and commits its offsets in one transaction, and
// reports whether it committed.
func (si *saramaInst) transact(sess sarama.ConsumerGroupSession, batch []*sarama.ConsumerMessage) bool {
	g := si.g
	si.mu.Lock()
	defer si.mu.Unlock()
	if err := si.prod.BeginTxn(); err != nil {
		return false
	}
	g.beganOnce[si.i].Do(func() { close(g.began[si.i]) })
	next := time.Now()
	last := map[int32]int64{}
	for _, m := range batch {
		next = next.Add(g.d(g.spec.Interval))
		if SleepUntil(si.ctx, next) != nil {
			break
		}
		// A paused process hands its client nothing: a pause that
		// starts inside the transaction holds the records not yet sent,
		// as the simulated application's are.
		if until := g.pausedUntil(si.i, time.Now()); !until.IsZero() {
			if SleepUntil(si.ctx, until) != nil {
				break
			}
			next = time.Now()
		}
		si.prod.Input() <- &sarama.ProducerMessage{Topic: groupOutput, Partition: m.Partition, Value: sarama.ByteEncoder(m.Value)}
		last[m.Partition] = m.Offset
	}
	var offs []*sarama.PartitionOffsetMetadata
	for p, o := range last {
		offs = append(offs, &sarama.PartitionOffsetMetadata{Partition: p, Offset: o + 1})
	}
	offsets := map[string][]*sarama.PartitionOffsetMetadata{groupInput: offs}
	var err error
	if g.spec.GroupIDOnly {
		err = si.prod.AddOffsetsToTxn(offsets, groupName)
	} else {
		err = si.prod.AddOffsetsToTxnWithGroupMetadata(offsets, &sarama.ConsumerGroupMetadata{GroupID: groupName,
			GenerationID: sess.GenerationID(), MemberID: sess.MemberID()})
	}
	// A pause that starts while the transaction is open holds the
	// instance here, before the end, as the simulated pause does.
	if until := g.pausedUntil(si.i, time.Now()); !until.IsZero() {
		if SleepUntil(si.ctx, until) != nil {
			return false
		}
	}
	if err == nil {
		err = si.prod.CommitTxn()
	}
	if err != nil && si.prod.TxnStatus()&(sarama.ProducerTxnFlagAbortableError|sarama.ProducerTxnFlagInTransaction) != 0 {
		si.prod.AbortTxn()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		g.aborts++
		return false
	}
	g.commits++
	return true
}
