package validate

import (
	"errors"
	"fmt"
	stdnet "net"
	"sync"
	"time"

	"github.com/IBM/sarama"
	metrics "github.com/rcrowley/go-metrics"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/idemsim/idemsim/internal/validate/proxy"
	"github.com/idemsim/idemsim/scenarios/world"
)

// IBM/sarama, a pure-Go client with an idempotent producer, the third
// real stack (docs/validate.md "A third client: sarama"). idemsim has no
// sarama policy: its runs are compared with the Java client's
// (client.policy=java), with max.in.flight.requests.per.connection=1
// when idempotent, the one request in flight sarama allows
// (config.go, Config.Validate: "Idempotent producer requires
// Net.MaxOpenRequests to be 1").

// ClientSarama is IBM/sarama's AsyncProducer.
const ClientSarama = "sarama"

// sarama's metrics start a process-wide ticker goroutine (go-metrics'
// meter arbiter) that never ends; validate reads none of them, and a
// real run leaves no goroutine behind (TestNoLeaks).
func init() { metrics.UseNilMetrics = true }

// saramaProducer is one sarama AsyncProducer instance.
type saramaProducer struct {
	cl    sarama.Client
	p     sarama.AsyncProducer
	topic string
	wg    sync.WaitGroup
	once  sync.Once
}

// saramaDialer sends every connection of instance i through its proxy
// for the broker it asks for, and refuses any other address.
type saramaDialer struct {
	redirect map[string]string
	row      []*proxy.Proxy
}

func (d saramaDialer) Dial(network, addr string) (stdnet.Conn, error) {
	if to, ok := d.redirect[addr]; ok {
		addr = to
	} else if !isProxy(addr, d.row) {
		return nil, fmt.Errorf("validate: refusing to dial %s, which is not a broker of the run", addr)
	}
	return (&stdnet.Dialer{Timeout: time.Second}).Dial(network, addr)
}

// newSarama makes instance i's producer, its settings mapped from the
// run's effective producer configuration: retries (at most
// delivery.timeout.ms / retry.backoff.ms + 1), retry.backoff.ms, request.timeout.ms as the read timeout
// and the produce timeout, batch.size as Flush.MaxMessages (records),
// linger.ms as Flush.Frequency. sarama has no delivery.timeout.ms: a
// record fails only when its retries run out.
func newSarama(r *realRun, i int) (producer, error) {
	pc := r.spec.Resolved.Producer
	d := saramaDialer{redirect: map[string]string{}, row: r.proxies[i]}
	for j, addr := range r.brokers {
		d.redirect[addr] = r.proxies[i][j].Addr()
	}
	c := sarama.NewConfig()
	c.Version = sarama.V3_6_0_0
	c.ClientID = "idemsim-" + world.InstanceName(i)
	c.Net.Proxy.Enable = true
	c.Net.Proxy.Dialer = d
	c.Net.DialTimeout = time.Second
	rt := max(r.d(pc.RequestTimeout), 10*time.Millisecond)
	c.Net.ReadTimeout = rt
	c.Net.WriteTimeout = rt
	c.Producer.Timeout = rt
	c.Producer.Return.Successes = true
	c.Producer.Return.Errors = true
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Producer.Compression = sarama.CompressionNone
	c.Producer.Flush.MaxMessages = pc.BatchSize
	c.Producer.Flush.Messages = pc.BatchSize
	c.Producer.Flush.Frequency = r.d(pc.Linger)
	// sarama keeps a retry state per possible retry and partition, and
	// has no delivery.timeout.ms: its retries stop where the Java
	// client's delivery timeout would, at retry.backoff.ms each.
	c.Producer.Retry.Max = int(min(int64(pc.Retries), int64(pc.DeliveryTimeout/max(pc.RetryBackoff, time.Millisecond))+1, 100000))
	c.Producer.Retry.Backoff = max(r.d(pc.RetryBackoff), time.Millisecond)
	c.Metadata.RefreshFrequency = time.Second
	c.Metadata.Retry.Backoff = max(r.d(pc.RetryBackoff), time.Millisecond)
	switch pc.Acks {
	case 0:
		c.Producer.RequiredAcks = sarama.NoResponse
	case 1:
		c.Producer.RequiredAcks = sarama.WaitForLocal
	default:
		c.Producer.RequiredAcks = sarama.WaitForAll
	}
	c.Net.MaxOpenRequests = pc.MaxInFlight
	if pc.EnableIdempotence {
		c.Producer.Idempotent = true
		c.Net.MaxOpenRequests = 1
		c.Producer.Retry.Max = max(c.Producer.Retry.Max, 1)
	}
	txn := pc.TransactionalID != "" && pc.TransactionRecords > 0
	if txn {
		c.Producer.Transaction.ID = pc.TransactionalID
		c.Producer.Transaction.Timeout = max(r.d(pc.TransactionTimeout), time.Second)
		c.Producer.Transaction.Retry.Backoff = max(r.d(pc.RetryBackoff), time.Millisecond)
	}
	cl, err := sarama.NewClient(r.brokers, c)
	if err != nil {
		return nil, err
	}
	p, err := sarama.NewAsyncProducerFromClient(cl)
	if err != nil {
		cl.Close()
		return nil, err
	}
	if txn {
		return newSaramaTxn(cl, p, r.topic, int(pc.TransactionRecords), int(r.cfg.App.Records), r.delivered), nil
	}
	sp := &saramaProducer{cl: cl, p: p, topic: r.topic}
	sp.wg.Add(2)
	go func() {
		defer sp.wg.Done()
		for m := range p.Successes() {
			m.Metadata.(func(error, string))(nil, "")
		}
	}()
	go func() {
		defer sp.wg.Done()
		for e := range p.Errors() {
			e.Msg.Metadata.(func(error, string))(e.Err, saramaErrName(e.Err))
		}
	}()
	return sp, nil
}

// saramaErrName names a failed record's error for the report: Kafka's
// code name for a broker's error, as kgo's are named.
func saramaErrName(err error) string {
	var ke sarama.KError
	switch {
	case errors.Is(err, sarama.ErrShuttingDown), errors.Is(err, sarama.ErrClosedClient):
		return ""
	case errors.As(err, &ke):
		return kafkaCodeName(int16(ke)) + "(fatal)"
	}
	return "CLIENT(" + err.Error() + ")"
}

func (sp *saramaProducer) produce(n int64, part int32, done func(error, string)) {
	sp.p.Input() <- &sarama.ProducerMessage{Topic: sp.topic, Partition: part, Value: sarama.ByteEncoder(payload(0, n)), Metadata: done}
}

func (sp *saramaProducer) finish() {}

// close closes the instance at once, as a crashed process: its client
// first, so that AsyncClose's flush of what it holds cannot reach a
// broker, then the producer, whose outcome readers drain (what fails
// then is reported ErrShuttingDown or ErrClosedClient, unnamed).
func (sp *saramaProducer) close() {
	sp.once.Do(func() {
		sp.cl.Close()
		sp.p.AsyncClose()
		sp.wg.Wait()
	})
}

// kafkaCodeName is Kafka's name of protocol error code c, as kgo and
// idemsim name it ("UNKNOWN_SERVER_ERROR" for a code kerr lacks).
func kafkaCodeName(c int16) string {
	var ke *kerr.Error
	if errors.As(kerr.ErrorForCode(c), &ke) {
		return ke.Message
	}
	return fmt.Sprintf("ERROR_%d", c)
}

// saramaTxn is sarama's transactional AsyncProducer for the application
// (txnapp.go): BeginTxn, then CommitTxn (it flushes first), AbortTxn when
// a record failed or the commit left the producer in its abortable state
// (ProducerTxnFlagAbortableError); in its fatal state
// (ProducerTxnFlagFatalError) the records fail.
type saramaTxn struct {
	cl  sarama.Client
	p   sarama.AsyncProducer
	app *txnApp
	// topic is the run's topic; wg counts the outcome readers.
	topic string
	wg    sync.WaitGroup
	shut  sync.Once
}

func newSaramaTxn(cl sarama.Client, p sarama.AsyncProducer, topic string, per, records int, onDelivered func()) *saramaTxn {
	t := &saramaTxn{cl: cl, p: p, topic: topic}
	t.app = newTxnApp(t, per, records, onDelivered)
	t.wg.Add(2)
	go func() {
		defer t.wg.Done()
		for range p.Successes() {
			t.app.delivered()
		}
	}()
	go func() {
		defer t.wg.Done()
		for e := range p.Errors() {
			if m, ok := e.Msg.Metadata.(*txnMember); ok {
				t.app.failed(m, e.Err)
			}
		}
	}()
	return t
}

func (t *saramaTxn) produce(n int64, part int32, done func(error, string)) {
	t.app.produce(n, part, done)
}
func (t *saramaTxn) finish() { t.app.finish() }

// close closes the client first, so that a commit or abort in progress
// fails at once, then stops the application and the producer.
func (t *saramaTxn) close() {
	t.shut.Do(func() {
		t.cl.Close()
		t.app.shutdown()
		t.p.AsyncClose()
		t.wg.Wait()
	})
}

func (t *saramaTxn) begin() error { return t.p.BeginTxn() }

func (t *saramaTxn) send(m *txnMember) error {
	select {
	case t.p.Input() <- &sarama.ProducerMessage{Topic: t.topic, Partition: m.rec.part, Value: sarama.ByteEncoder(payload(0, m.rec.n)), Metadata: m}:
	case <-t.app.stopped():
	}
	return nil
}

func (t *saramaTxn) end(open []*txnMember) {
	var err error
	if len(t.app.ok(open)) == len(open) {
		if err = t.p.CommitTxn(); err == nil {
			t.app.committed(open)
			return
		}
	}
	if t.p.TxnStatus()&sarama.ProducerTxnFlagFatalError != 0 {
		if err == nil {
			err = errors.New("transactional producer in its fatal state")
		}
		t.app.fail(open, err)
		return
	}
	if err := t.p.AbortTxn(); err != nil {
		t.app.fail(open, err)
		return
	}
	t.app.aborted(open)
}

func (t *saramaTxn) errName(err error) string { return saramaErrName(err) }
