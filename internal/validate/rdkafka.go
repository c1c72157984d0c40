//go:build librdkafka

package validate

import (
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
	p, err := kafka.NewProducer(cm)
	if err != nil {
		return nil, err
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
			name := ""
			if err != nil {
				if ke, ok := err.(kafka.Error); ok {
					switch ke.Code() {
					case kafka.ErrMsgTimedOut:
						name = "DELIVERY_TIMEOUT"
					case kafka.ErrPurgeInflight, kafka.ErrPurgeQueue:
						// a crash: the application never sees it
					default:
						name = strings.ToUpper(ke.Code().String()) + "(fatal)"
					}
				} else {
					name = fmt.Sprintf("CLIENT(%v)", err)
				}
			}
			done(err, name)
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
