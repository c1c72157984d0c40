//go:build librdkafka

package validate

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/idemsim/idemsim/scenarios/world"
)

// librdkafka through confluent-kafka-go, which ships a static librdkafka
// for linux/amd64 in its Go module; it needs cgo, so it is built only
// with -tags librdkafka (docs/validate.md).

func init() {
	newLibrdkafka = newRdkafka
	librdkafkaVersion = func() string { _, v := kafka.LibraryVersion(); return v }
}

// rdProducer is one librdkafka producer instance.
type rdProducer struct {
	p     *kafka.Producer
	topic string
	wg    sync.WaitGroup
	once  sync.Once
}

// ms returns a duration in whole milliseconds, at least lo.
func ms(d time.Duration, lo int) int {
	return max(int(d/time.Millisecond), lo)
}

// newRdkafka makes instance i's producer. librdkafka has no dialer hook:
// it bootstraps from the instance's proxies, and the proxies rewrite the
// brokers advertised in Metadata responses to themselves, so every
// connection still goes through a proxy.
func newRdkafka(r *realRun, i int) (producer, error) {
	pc := r.spec.Resolved.Producer // effective, after Kafka's rules
	var boot []string
	rewrite := map[string]string{}
	for j, addr := range r.brokers {
		boot = append(boot, r.proxies[i][j].Addr())
		rewrite[addr] = r.proxies[i][j].Addr()
	}
	for _, p := range r.proxies[i] {
		p.SetRewrite(rewrite)
	}
	acks := "all"
	switch pc.Acks {
	case 0:
		acks = "0"
	case 1:
		acks = "1"
	}
	// librdkafka 2.2.0 has no retry.backoff.max.ms: its retries wait
	// retry.backoff.ms each (the exponential backoff of KIP-580 came in
	// 2.3.0, CHANGELOG.md).
	cm := &kafka.ConfigMap{
		"bootstrap.servers":                     strings.Join(boot, ","),
		"client.id":                             "idemsim-" + world.InstanceName(i),
		"enable.idempotence":                    pc.EnableIdempotence,
		"acks":                                  acks,
		"max.in.flight.requests.per.connection": pc.MaxInFlight,
		"linger.ms":                             ms(r.d(pc.Linger), 0),
		"batch.num.messages":                    pc.BatchSize,
		"compression.type":                      "none",
		"socket.nagle.disable":                  pc.NagleDisable,
		"request.timeout.ms":                    ms(r.d(pc.RequestTimeout), 10),
		"socket.timeout.ms":                     ms(r.d(pc.RequestTimeout), 10),
		"retry.backoff.ms":                      ms(r.d(pc.RetryBackoff), 1),
		"reconnect.backoff.ms":                  ms(r.d(pc.ReconnectBackoff), 0),
		"reconnect.backoff.max.ms":              ms(r.d(max(pc.ReconnectBackoff, 10*time.Millisecond)), 10),
		"message.timeout.ms":                    ms(r.d(pc.DeliveryTimeout), 1000),
		"message.send.max.retries":              int(pc.Retries),
		"topic.metadata.refresh.interval.ms":    1000,
		"log_level":                             0,
		"go.delivery.reports":                   true,
	}
	txn := pc.TransactionalID != "" && pc.TransactionRecords > 0
	if txn {
		// librdkafka refuses a transactional producer whose
		// message.timeout.ms exceeds transaction.timeout.ms, or whose
		// socket.timeout.ms exceeds it by more than 100 ms
		// (rdkafka_conf.c, rd_kafka_conf_finalize); its
		// transaction.timeout.ms is at least 1000 ms.
		tt := ms(max(r.d(pc.TransactionTimeout), time.Second), 1000)
		(*cm)["transactional.id"] = pc.TransactionalID
		(*cm)["transaction.timeout.ms"] = tt
		(*cm)["message.timeout.ms"] = min(ms(r.d(pc.DeliveryTimeout), 1000), tt)
		(*cm)["socket.timeout.ms"] = min(ms(r.d(pc.RequestTimeout), 10), tt+100)
		(*cm)["request.timeout.ms"] = min(ms(r.d(pc.RequestTimeout), 10), tt+100)
	}
	p, err := kafka.NewProducer(cm)
	if err != nil {
		return nil, err
	}
	if txn {
		return newRdTxn(p, r.topic, int(pc.TransactionRecords), int(r.cfg.App.Records), max(2*r.d(pc.RequestTimeout), 2*time.Second), r.delivered), nil
	}
	rp := &rdProducer{p: p, topic: r.topic}
	rp.wg.Add(1)
	go func() {
		defer rp.wg.Done()
		for e := range p.Events() {
			m, ok := e.(*kafka.Message)
			if !ok || m.Opaque == nil {
				continue
			}
			done := m.Opaque.(func(error, string))
			err := m.TopicPartition.Error
			done(err, rdErrName(err))
		}
	}()
	return rp, nil
}

func (rp *rdProducer) produce(n int64, part int32, done func(error, string)) {
	m := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &rp.topic, Partition: part}, Value: payload(0, n), Opaque: done}
	if err := rp.p.Produce(m, nil); err != nil {
		done(err, fmt.Sprintf("CLIENT(%v)", err))
	}
}

func (rp *rdProducer) finish() {}

// close purges what is queued or in flight (their outcomes are dropped,
// as a crashed process's) and destroys the instance.
func (rp *rdProducer) close() {
	rp.once.Do(func() {
		rp.p.Purge(kafka.PurgeQueue | kafka.PurgeInFlight | kafka.PurgeNonBlocking)
		rp.p.Close()
		rp.wg.Wait()
	})
}

// rdErrName names a delivery report's error for the report ("" for none,
// or for a purge at a crash, which the application never sees).
func rdErrName(err error) string {
	if err == nil {
		return ""
	}
	ke, ok := err.(kafka.Error)
	if !ok {
		return fmt.Sprintf("CLIENT(%v)", err)
	}
	switch ke.Code() {
	case kafka.ErrMsgTimedOut:
		return "DELIVERY_TIMEOUT"
	case kafka.ErrPurgeInflight, kafka.ErrPurgeQueue:
		return ""
	case kafka.ErrFenced, kafka.ErrProducerFenced, kafka.ErrInvalidProducerEpoch:
		// A transactional producer's fencing, as the Java client and
		// idemsim name it (txnErrName does the same for kgo).
		return "PRODUCER_FENCED(fatal)"
	}
	if c := ke.Code(); c > 0 {
		// A broker's error: librdkafka's positive codes are the
		// protocol's, named as kgo and idemsim name them.
		return kafkaCodeName(int16(c)) + "(fatal)"
	}
	return strings.ToUpper(ke.Code().String()) + "(fatal)"
}

// rdTxn is librdkafka's transactional API for the application
// (txnapp.go): InitTransactions once, BeginTransaction, then
// CommitTransaction (it flushes first), retried while the error is
// retriable within the application's wait; AbortTransaction when a record
// failed or the error requires it (rd_kafka_error_txn_requires_abort); a
// fatal error fails the records (librdkafka's INTRODUCTION.md,
// "Transactional Producer").
type rdTxn struct {
	p      *kafka.Producer
	app    *txnApp
	topic  string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	shut   sync.Once
	inited bool
	wait   time.Duration
}

func newRdTxn(p *kafka.Producer, topic string, per, records int, wait time.Duration, onDelivered func()) *rdTxn {
	ctx, cancel := context.WithCancel(context.Background())
	t := &rdTxn{p: p, topic: topic, ctx: ctx, cancel: cancel, wait: wait}
	t.app = newTxnApp(t, per, records, onDelivered)
	t.wg.Add(1)
	go func() {
		// The delivery reports: a failed record is reported at once.
		defer t.wg.Done()
		for e := range p.Events() {
			if m, ok := e.(*kafka.Message); ok {
				if mb, ok := m.Opaque.(*txnMember); ok && m.TopicPartition.Error != nil {
					t.app.failed(mb, m.TopicPartition.Error)
				} else if ok {
					t.app.delivered()
				}
			}
		}
	}()
	return t
}

func (t *rdTxn) produce(n int64, part int32, done func(error, string)) { t.app.produce(n, part, done) }
func (t *rdTxn) finish()                                               { t.app.finish() }

func (t *rdTxn) close() {
	t.shut.Do(func() {
		t.cancel()
		t.app.shutdown()
		t.p.Purge(kafka.PurgeQueue | kafka.PurgeInFlight | kafka.PurgeNonBlocking)
		t.p.Close()
		t.wg.Wait()
	})
}

func (t *rdTxn) begin() error {
	if !t.inited {
		ctx, cancel := context.WithTimeout(t.ctx, t.wait)
		err := t.p.InitTransactions(ctx)
		cancel()
		if err != nil {
			return err
		}
		t.inited = true
	}
	return t.p.BeginTransaction()
}

func (t *rdTxn) send(m *txnMember) error {
	return t.p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &t.topic, Partition: m.rec.part}, Value: payload(0, m.rec.n), Opaque: m}, nil)
}

func (t *rdTxn) end(open []*txnMember) {
	ctx, cancel := context.WithTimeout(t.ctx, t.wait)
	defer cancel()
	var err error
	if len(t.app.ok(open)) == len(open) {
		for {
			err = t.p.CommitTransaction(ctx)
			ke, ok := err.(kafka.Error)
			if err == nil || !ok || !ke.IsRetriable() || ctx.Err() != nil {
				break
			}
		}
		if err == nil {
			t.app.committed(open)
			return
		}
		if ke, ok := err.(kafka.Error); !ok || !ke.TxnRequiresAbort() {
			t.app.fail(open, err) // fatal, or the wait ran out
			return
		}
	}
	if err := t.p.AbortTransaction(ctx); err != nil {
		t.app.fail(open, err)
		return
	}
	t.app.aborted(open)
}

func (t *rdTxn) errName(err error) string { return rdErrName(err) }
