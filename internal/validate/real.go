package validate

import (
	"context"
	"errors"
	"fmt"
	"github.com/idemsim/idemsim/internal/validate/groupapp"
	"github.com/idemsim/idemsim/internal/validate/proxy"
	stdnet "net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// RealSpec is one run of a scenario against a real client and broker.
type RealSpec struct {
	// Resolved is the scenario's resolved configuration (the same the
	// simulated side runs).
	Resolved *scenarios.Resolved
	// Plan is the run's fault plan, in simulated time.
	Plan faults.Plan
	// Seed seeds the proxies' draws.
	Seed uint64
	// Scale multiplies every duration of the scenario (send interval,
	// timeouts, backoffs, latencies, plan times) on the real side.
	Scale float64
	// Bootstrap, if set, is a user's Kafka cluster (host:port) to run
	// against instead of an in-process kfake cluster.
	Bootstrap string
	// Instances is the number of producer instances the scenario starts
	// (p1, p2, ...).
	Instances int
	// Deadline bounds the run's wall time.
	Deadline time.Duration
	// Client is the real client: ClientFranzGo (default) or
	// ClientLibrdkafka.
	Client string
	// Starts are the instances' start times in simulated time (instance
	// i starts at Starts[i]; the first at 0 when empty). A later
	// instance takes its application over: the application's sends go
	// to it, and with app.takeover.resend it sends again the records
	// the older instances left unresolved.
	Starts []time.Duration
	// PauseAfterAck: a pause of a client starts at its planned time or
	// at the run's first acknowledgement, whichever is later
	// ([Support.PauseAfterAck]).
	PauseAfterAck bool
}

// Counts are one run's counters, the same on both sides.
type Counts struct {
	Sent       int64            `json:"sent"`
	Acked      int64            `json:"acked"`
	Failed     int64            `json:"failed"`
	Pending    int64            `json:"pending"`
	Appended   int64            `json:"appended"`
	Duplicates int64            `json:"duplicates"`
	Reordered  int64            `json:"reordered"`
	LostAcked  int64            `json:"lost_acked"`
	Fenced     int64            `json:"fenced"`
	Errors     map[string]int64 `json:"errors"`
	// GroupFenced is 1 when the consumer group refused a member an
	// instance thought it was (a zombie fenced by the group), else 0;
	// TxnAborted counts the application's aborted transactions. Both
	// are compared for consumer-group applications only
	// (Support.Group).
	GroupFenced int64 `json:"group_fenced,omitempty"`
	TxnAborted  int64 `json:"txn_aborted,omitempty"`
}

// recordSize is the value size of every record on the real side: large
// enough that ProducerBatchMaxBytes can stand for batch.size, which
// idemsim counts in records (batchBytes).
const recordSize = 480

// batchBytes is the batch byte limit that fits batch.size records of
// recordSize bytes and not one more (a record takes 488..495 bytes on the
// wire, a batch header 61).
func batchBytes(records int) int32 {
	n := int64(61 + records*495 + 100)
	if n < 512 {
		n = 512
	}
	if n > 1<<30 {
		n = 1 << 30
	}
	return int32(n)
}

// payload is record n of application app: its id, padded.
func payload(app int32, n int64) []byte {
	b := make([]byte, recordSize)
	id := "a" + strconv.Itoa(int(app)) + ":" + strconv.FormatInt(n, 10) + "|"
	copy(b, id)
	for i := len(id); i < len(b); i++ {
		b[i] = '.'
	}
	return b
}

// parsePayload returns the record id in a value written by payload.
func parsePayload(v []byte) (model.RecordID, bool) {
	s := string(v)
	i := strings.IndexByte(s, '|')
	if i < 0 || !strings.HasPrefix(s, "a") {
		return model.RecordID{}, false
	}
	a, n, ok := strings.Cut(s[1:i], ":")
	if !ok {
		return model.RecordID{}, false
	}
	ai, err1 := strconv.Atoi(a)
	ni, err2 := strconv.ParseInt(n, 10, 64)
	if err1 != nil || err2 != nil {
		return model.RecordID{}, false
	}
	return model.RecordID{App: int32(ai), N: ni}, true
}

// proxyStatsHook, when set (by a test), gets each proxy's counters at a
// real run's end (the in-flight probe, inflight_probe_test.go).
var proxyStatsHook func(proxy.Stats)

// debugLogger, when set (by a test), logs the real clients.
var debugLogger kgo.Logger

// ErrUnsupported marks a plan action or setting validate cannot carry
// out against a real client.
var ErrUnsupported = errors.New("not supported by validate")

// realRun is the state of one real run.
type realRun struct {
	spec RealSpec
	cfg  *params.Config
	// topo is the simulator's topology of the run: it names the nodes
	// (broker j is r.brokers[j]).
	topo    world.Topology
	topic   string
	brokers []string // broker addresses, b1 first
	cluster *kfake.Cluster
	// proxies[i][j]: instance i to broker j.
	proxies [][]*proxy.Proxy
	start   time.Time

	mu sync.Mutex
	// inst[i] is instance i's client, nil while it is down.
	inst    []producer
	gen     []int // bumped at each crash: outcomes of older clients are ignored
	down    []bool
	started []bool
	// pausedUntil[i]: instance i's process is paused (its application
	// hands it nothing) until then; held are the application's sends
	// that waited meanwhile, in order.
	pausedUntil []time.Time
	held        []int64
	appEnded    bool
	acked       map[int64]bool
	failed      map[int64]bool
	outcome     map[int64]bool // any outcome
	// unresolved are the records sent whose outcome the application has
	// not seen, by instance.
	unresolved []map[int64]int32
	errs       map[string]int64
	// fatalNamed: the client of instance i, generation gen, had its
	// "(fatal)" error counted.
	fatalNamed map[[2]int]bool
	// firstAck is closed at the run's first acknowledgement.
	firstAck     chan struct{}
	firstAckOnce sync.Once
	err          error
}

func (r *realRun) d(x time.Duration) time.Duration {
	return time.Duration(float64(x) * r.spec.Scale)
}

// RunReal runs spec once against franz-go's kgo producer and a kfake
// cluster (or the cluster at spec.Bootstrap), every connection through a
// fault-injecting proxy, and counts what reached the log.
func RunReal(ctx context.Context, spec RealSpec) (Counts, error) {
	if spec.Resolved.Config.App.Mode.Grouped() {
		return runGroupScenario(ctx, spec)
	}
	r := &realRun{spec: spec, cfg: spec.Resolved.Config, acked: map[int64]bool{}, failed: map[int64]bool{},
		outcome: map[int64]bool{}, errs: map[string]int64{}}
	if spec.Deadline <= 0 {
		spec.Deadline = time.Minute
		r.spec.Deadline = spec.Deadline
	}
	ctx, cancel := context.WithTimeout(ctx, spec.Deadline)
	defer cancel()
	defer r.close()
	if err := r.setup(ctx); err != nil {
		return Counts{}, err
	}
	if err := r.drive(ctx); err != nil {
		return Counts{}, err
	}
	return r.count(ctx)
}

func (r *realRun) setup(ctx context.Context) error {
	parts := r.cfg.Partitions
	topo, err := world.NewTopology(r.cfg.Brokers, parts)
	if err != nil {
		return err
	}
	r.topo = topo
	if r.spec.Bootstrap == "" {
		r.topic = "idemsim"
		c, err := kfake.NewCluster(kfake.NumBrokers(r.cfg.Brokers), kfake.SeedTopics(int32(parts), r.topic),
			kfake.ListenFn(func(network, _ string) (stdnet.Listener, error) { return stdnet.Listen(network, "127.0.0.1:0") }))
		if err != nil {
			return fmt.Errorf("kfake: %w", err)
		}
		r.cluster = c
		r.brokers = c.ListenAddrs()
		for p := 0; p < parts; p++ {
			if err := c.MoveTopicPartition(r.topic, int32(p), int32(p%r.cfg.Brokers)); err != nil {
				return fmt.Errorf("kfake: placing partition %d: %w", p, err)
			}
		}
	} else {
		if err := r.setupBootstrap(ctx); err != nil {
			return err
		}
	}
	n := max(r.spec.Instances, 1)
	r.inst = make([]producer, n)
	r.gen = make([]int, n)
	r.down = make([]bool, n)
	r.started = make([]bool, n)
	r.pausedUntil = make([]time.Time, n)
	r.unresolved = make([]map[int64]int32, n)
	for i := range r.unresolved {
		r.unresolved[i] = map[int64]int32{}
	}
	net := r.cfg.Net
	for i := 0; i < n; i++ {
		var row []*proxy.Proxy
		for j, addr := range r.brokers {
			pc := proxy.Config{Client: world.InstanceName(i), Server: r.topo.BrokerName(j), Coordinator: r.topo.CoordinatorName(),
				Upstream: addr, RequestLoss: net.RequestLoss, ResponseLoss: net.ResponseLoss, Notice: net.DisconnectNotice,
				TransientError: r.cfg.Broker.TransientError, Seed: r.spec.Seed*1000003 + uint64(i*64+j),
				Latency: net.Latency, LatencyScale: r.spec.Scale}
			p, err := proxy.New(pc)
			if err != nil {
				return err
			}
			row = append(row, p)
		}
		r.proxies = append(r.proxies, row)
	}
	if r.spec.Bootstrap != "" {
		// A user's brokers advertise their own addresses: rewrite them
		// too, so that a client that took an address from a response
		// rather than through the dialer still reaches a proxy.
		for i, row := range r.proxies {
			m := map[string]string{}
			for j, addr := range r.brokers {
				m[addr] = r.proxies[i][j].Addr()
			}
			for _, p := range row {
				p.SetRewrite(m)
			}
		}
	}
	return nil
}

// setupBootstrap finds a user's cluster's brokers and creates a fresh
// topic for the run.
func (r *realRun) setupBootstrap(ctx context.Context) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.spec.Bootstrap), kgo.DialTimeout(5*time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	meta := kmsg.NewPtrMetadataRequest()
	resp, err := meta.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("-bootstrap %s: metadata: %w", r.spec.Bootstrap, err)
	}
	bs := slices.Clone(resp.Brokers)
	sort.Slice(bs, func(a, b int) bool { return bs[a].NodeID < bs[b].NodeID })
	for _, b := range bs {
		r.brokers = append(r.brokers, stdnet.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))))
	}
	if len(r.brokers) < r.cfg.Brokers {
		return fmt.Errorf("-bootstrap %s: the cluster has %d brokers, the scenario needs %d", r.spec.Bootstrap, len(r.brokers), r.cfg.Brokers)
	}
	r.brokers = r.brokers[:r.cfg.Brokers]
	r.topic = fmt.Sprintf("idemsim-validate-%d-%d", time.Now().UnixNano(), r.spec.Seed)
	ct := kmsg.NewPtrCreateTopicsRequest()
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic = r.topic
	t.NumPartitions = int32(r.cfg.Partitions)
	t.ReplicationFactor = -1
	ct.Topics = append(ct.Topics, t)
	ct.TimeoutMillis = 10000
	cr, err := ct.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("-bootstrap: create topic: %w", err)
	}
	for _, t := range cr.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return fmt.Errorf("-bootstrap: create topic %s: %w", r.topic, err)
		}
	}
	return nil
}

// close ends every client, proxy and the cluster.
func (r *realRun) close() {
	r.endFaults()
	r.mu.Lock()
	clients := slices.Clone(r.inst)
	for i := range r.inst {
		r.inst[i] = nil
	}
	r.mu.Unlock()
	for _, cl := range clients {
		if cl != nil {
			cl.close()
		}
	}
	for _, row := range r.proxies {
		for _, p := range row {
			p.Close()
		}
	}
	if r.cluster != nil {
		r.cluster.Close()
	}
}

// clientOpts are instance i's kgo options, from the scenario's producer
// parameters (docs/validate.md has the mapping).
func (r *realRun) clientOpts(i int) []kgo.Opt {
	pc := r.spec.Resolved.Producer // effective, after Kafka's rules
	redirect := map[string]string{}
	for j, addr := range r.brokers {
		redirect[addr] = r.proxies[i][j].Addr()
	}
	dialer := func(ctx context.Context, network, host string) (stdnet.Conn, error) {
		if to, ok := redirect[host]; ok {
			host = to
		} else if !isProxy(host, r.proxies[i]) {
			return nil, fmt.Errorf("validate: refusing to dial %s, which is not a broker of the run", host)
		}
		var d stdnet.Dialer
		return d.DialContext(ctx, network, host)
	}
	half := max(r.d(pc.RequestTimeout)/2, 100*time.Millisecond)
	backoff := func(tries int) time.Duration {
		d := pc.RetryBackoff
		for k := 1; k < tries && d < pc.RetryBackoffMax; k++ {
			d *= 2
		}
		d = min(d, max(pc.RetryBackoffMax, pc.RetryBackoff))
		return r.d(d)
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(r.brokers...),
		kgo.Dialer(dialer),
		kgo.DialTimeout(time.Second),
		kgo.DefaultProduceTopic(r.topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.ProducerBatchMaxBytes(batchBytes(pc.BatchSize)),
		kgo.ProducerLinger(r.d(pc.Linger)),
		kgo.ProduceRequestTimeout(half),
		kgo.RequestTimeoutOverhead(half),
		kgo.RetryBackoffFn(backoff),
		kgo.RecordRetries(int(pc.Retries)),
		kgo.MetadataMinAge(50 * time.Millisecond),
		kgo.ClientID("idemsim-" + world.InstanceName(i)),
		// The proxy's closes are network faults, not a TLS or SASL
		// misconfiguration, which is what franz-go assumes by default of
		// a connection closed before its first response (it then fails
		// the buffered records).
		kgo.AlwaysRetryEOF(),
	}
	if debugLogger != nil {
		opts = append(opts, kgo.WithLogger(debugLogger))
	}
	if pc.DeliveryTimeout > 0 {
		opts = append(opts, kgo.RecordDeliveryTimeout(max(r.d(pc.DeliveryTimeout), time.Second)))
	}
	switch pc.Acks {
	case 0:
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	case 1:
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	if !pc.EnableIdempotence {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(pc.MaxInFlight))
	}
	if pc.TransactionalID != "" && pc.TransactionRecords > 0 {
		opts = append(opts, kgo.TransactionalID(pc.TransactionalID),
			kgo.TransactionTimeout(max(r.d(pc.TransactionTimeout), time.Second)))
	}
	return opts
}

func isProxy(host string, row []*proxy.Proxy) bool {
	for _, p := range row {
		if p.Addr() == host {
			return true
		}
	}
	return false
}

// event is one thing the driver does at a time: an application send or
// a plan action.
type event struct {
	at     time.Duration // real time from the start
	send   bool
	app    int32
	n      int64
	action faults.Action
	// start >= 1 starts instance start (a takeover).
	start int
	// last: the application's stream ends after this send.
	last bool
}

// drive runs the application's sends and the plan's actions in time
// order, then waits for every record's outcome.
func (r *realRun) drive(ctx context.Context) error {
	var evs []event
	for n := int64(0); n < r.cfg.App.Records; n++ {
		at := time.Duration(n) * r.cfg.App.SendInterval
		if r.cfg.App.IdleAfter > 0 && n >= r.cfg.App.IdleAfter {
			at += r.cfg.App.Idle
		}
		evs = append(evs, event{at: r.d(at), send: true, n: n, last: n == r.cfg.App.Records-1})
	}
	for i, at := range r.spec.Starts {
		if i > 0 && i < len(r.inst) {
			evs = append(evs, event{at: r.d(at), start: i})
		}
	}
	for _, a := range r.spec.Plan.Actions {
		evs = append(evs, event{at: r.d(a.At), action: a.Action})
	}
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].at < evs[b].at })
	r.firstAck = make(chan struct{})
	if err := r.startInstance(0); err != nil {
		return err
	}
	r.started[0] = true
	r.start = time.Now()
	if end := r.spec.Plan.End; end > 0 {
		// The fault phase ends at the plan's end: what a pause or a cut
		// still holds then goes through. A run whose records all have
		// their outcomes before it does not wait for it.
		t := time.AfterFunc(r.d(end), r.endFaults)
		defer t.Stop()
	}
	for _, ev := range evs {
		if err := groupapp.SleepUntil(ctx, r.start.Add(ev.at)); err != nil {
			return fmt.Errorf("validate: run did not finish in %v", r.spec.Deadline)
		}
		r.releaseHeld(ctx)
		switch {
		case ev.send:
			r.send(ctx, ev.n)
			if ev.last {
				r.mu.Lock()
				r.appEnded = true
				held := len(r.held) > 0
				r.mu.Unlock()
				if !held {
					r.finishApp()
				}
			}
		case ev.start > 0:
			if err := r.takeover(ev.start); err != nil {
				return err
			}
		default:
			if _, pause := ev.action.(faults.Pause); pause && r.spec.PauseAfterAck {
				select {
				case <-r.firstAck:
				case <-ctx.Done():
					return fmt.Errorf("validate: no acknowledgement before the pause within %v", r.spec.Deadline)
				}
			}
			if err := r.apply(ev.action); err != nil {
				return err
			}
		}
		r.mu.Lock()
		err := r.err
		r.mu.Unlock()
		if err != nil {
			return err
		}
	}
	// A pause still running ends at its own time, as the simulated one
	// does, or at the plan's end if that comes first: the last send does
	// not cut it short.
	r.mu.Lock()
	var resume time.Time
	for _, t := range r.pausedUntil {
		if t.After(resume) {
			resume = t
		}
	}
	r.mu.Unlock()
	if end := r.spec.Plan.End; end > 0 && resume.After(r.start.Add(r.d(end))) {
		resume = r.start.Add(r.d(end))
	}
	if err := groupapp.SleepUntil(ctx, resume); err != nil {
		return fmt.Errorf("validate: run did not finish in %v", r.spec.Deadline)
	}
	r.endFaults()
	// As in the simulator, the end of the fault phase restarts what is
	// still down.
	t := &target{r: r}
	for i := range r.inst {
		r.mu.Lock()
		down := r.down[i]
		r.mu.Unlock()
		if down {
			t.Restart(world.InstanceName(i), false)
			if t.err != nil {
				return t.err
			}
		}
	}
	// Every record must get its outcome.
	for {
		r.mu.Lock()
		open := len(r.held)
		for _, u := range r.unresolved {
			open += len(u)
		}
		r.mu.Unlock()
		if open == 0 {
			return nil
		}
		r.releaseHeld(ctx)
		if err := groupapp.SleepUntil(ctx, time.Now().Add(2*time.Millisecond)); err != nil {
			return fmt.Errorf("validate: %d records without an outcome after %v", open, r.spec.Deadline)
		}
	}
}

// producer is one real producer instance.
type producer interface {
	// produce sends record n to partition part; done is called once
	// with its outcome: nil, or an error and its name for the report
	// ("" when it is the client closing at a crash).
	produce(n int64, part int32, done func(err error, name string))
	// finish tells the instance the application sends nothing more (a
	// transactional one commits what it holds).
	finish()
	// close closes the instance at once (a crash, or the run's end);
	// outcomes still to come are dropped or reported as closed.
	close()
}

// kgoProducer is franz-go's kgo client.
type kgoProducer struct{ cl *kgo.Client }

func (k kgoProducer) produce(n int64, part int32, done func(error, string)) {
	rec := &kgo.Record{Value: payload(0, n), Partition: part}
	k.cl.Produce(context.Background(), rec, func(_ *kgo.Record, err error) {
		name := ""
		var ke *kerr.Error
		switch {
		case err == nil:
		case errors.Is(err, kgo.ErrRecordTimeout):
			name = "DELIVERY_TIMEOUT"
		case errors.Is(err, kgo.ErrClientClosed):
		case errors.As(err, &ke):
			name = ke.Message + "(fatal)"
		default:
			name = "CLIENT(" + err.Error() + ")"
		}
		done(err, name)
	})
}

func (k kgoProducer) close()  { k.cl.Close() }
func (k kgoProducer) finish() {}

// newLibrdkafka, when the build has librdkafka (-tags librdkafka,
// rdkafka.go), makes instance i's librdkafka producer.
var newLibrdkafka func(r *realRun, i int) (producer, error)

// Clients are the real clients validate can run.
const (
	ClientFranzGo    = "franz-go"
	ClientLibrdkafka = "librdkafka"
)

// HasLibrdkafka reports whether this build can run librdkafka.
func HasLibrdkafka() bool { return newLibrdkafka != nil }

// librdkafkaVersion is set by rdkafka.go.
var librdkafkaVersion = func() string { return "unknown" }

// startInstance starts (or restarts) instance i's client.
func (r *realRun) startInstance(i int) error {
	var cl producer
	if r.spec.Client == ClientSarama {
		p, err := newSarama(r, i)
		if err != nil {
			return fmt.Errorf("sarama: %w", err)
		}
		cl = p
	} else if r.spec.Client == ClientLibrdkafka {
		if newLibrdkafka == nil {
			return fmt.Errorf("librdkafka: this build has no librdkafka (build with -tags librdkafka): %w", ErrUnsupported)
		}
		p, err := newLibrdkafka(r, i)
		if err != nil {
			return fmt.Errorf("librdkafka: %w", err)
		}
		cl = p
	} else {
		k, err := kgo.NewClient(r.clientOpts(i)...)
		if err != nil {
			return fmt.Errorf("kgo: %w", err)
		}
		if pc := r.spec.Resolved.Producer; pc.TransactionRecords > 0 && pc.TransactionalID != "" {
			n := pc.TransactionRecords
			cl = newKgoTxn(k, n, int(r.cfg.App.Records), max(2*r.d(pc.RequestTimeout), 2*time.Second), r.delivered)
		} else {
			cl = kgoProducer{k}
		}
	}
	r.mu.Lock()
	r.inst[i] = cl
	r.down[i] = false
	r.mu.Unlock()
	return nil
}

// send is the application's send of record n (or its resend).
func (r *realRun) send(ctx context.Context, n int64) {
	r.mu.Lock()
	i := r.current()
	if time.Now().Before(r.pausedUntil[i]) {
		// The paused process's application thread waits too (in the
		// simulator a pause holds the node's events, the application's
		// sends among them): the send goes to whichever instance is
		// current when the pause ends or a takeover comes.
		r.held = append(r.held, n)
		r.mu.Unlock()
		return
	}
	part := int32(n % int64(r.cfg.Partitions))
	r.unresolved[i][n] = part
	cl, gen := r.inst[i], r.gen[i]
	r.mu.Unlock()
	if cl == nil {
		return // down: resent at the restart
	}
	r.produce(ctx, cl, i, gen, n, part)
}

// releaseHeld sends the held sends once the current instance is not
// paused.
func (r *realRun) releaseHeld(ctx context.Context) {
	r.mu.Lock()
	i := r.current()
	if len(r.held) == 0 || time.Now().Before(r.pausedUntil[i]) {
		r.mu.Unlock()
		return
	}
	held := r.held
	r.held = nil
	ended := r.appEnded
	r.mu.Unlock()
	for _, n := range held {
		r.send(ctx, n)
	}
	if ended {
		r.finishApp()
	}
}

// current returns the newest started instance (r.mu held).
func (r *realRun) current() int {
	for i := len(r.started) - 1; i > 0; i-- {
		if r.started[i] {
			return i
		}
	}
	return 0
}

// takeover starts instance i, which takes the application over: with
// app.takeover.resend it sends again, in order, the records the older
// instances left unresolved (scenarios' World.takeover).
func (r *realRun) takeover(i int) error {
	if err := r.startInstance(i); err != nil {
		return err
	}
	r.mu.Lock()
	r.started[i] = true
	var ids []int64
	parts := map[int64]int32{}
	if r.cfg.App.Mode == params.AppAtLeastOnce {
		for j := 0; j < i; j++ {
			for n, p := range r.unresolved[j] {
				if _, dup := r.unresolved[i][n]; !dup {
					if _, seen := parts[n]; !seen {
						ids = append(ids, n)
					}
					parts[n] = p
				}
			}
		}
	}
	slices.Sort(ids)
	for _, n := range ids {
		r.unresolved[i][n] = parts[n]
	}
	cl, gen := r.inst[i], r.gen[i]
	ended := r.appEnded && len(r.held) == 0
	r.mu.Unlock()
	for _, n := range ids {
		r.produce(context.Background(), cl, i, gen, n, parts[n])
	}
	if ended {
		// The application's stream had ended: the new instance commits
		// what it was handed.
		cl.finish()
	}
	return nil
}

// finishApp ends the application's stream: the current instance
// commits what its open transaction holds.
func (r *realRun) finishApp() {
	r.mu.Lock()
	cl := r.inst[r.current()]
	r.mu.Unlock()
	if cl != nil {
		cl.finish()
	}
}

func (r *realRun) produce(_ context.Context, cl producer, i, gen int, n int64, part int32) {
	cl.produce(n, part, func(err error, name string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.gen[i] != gen {
			return // a crashed instance's outcome: the application never sees it
		}
		delete(r.unresolved[i], n)
		r.outcome[n] = true
		if err == nil {
			r.acked[n] = true
			r.delivered()
			return
		}
		r.failed[n] = true
		if strings.HasSuffix(name, "(fatal)") {
			// A client's error is counted once per client, as idemsim
			// counts an instance's fatal error once (its records that
			// fail with it after the first are not counted again).
			k := [2]int{i, gen}
			if r.fatalNamed[k] {
				return
			}
			if r.fatalNamed == nil {
				r.fatalNamed = map[[2]int]bool{}
			}
			r.fatalNamed[k] = true
		}
		if name != "" {
			r.errs[name]++
		}
	})
}

// delivered notes that the broker acknowledged a record: the first
// closes firstAck.
func (r *realRun) delivered() {
	if r.firstAck != nil {
		r.firstAckOnce.Do(func() { close(r.firstAck) })
	}
}

// apply carries out a plan action.
func (r *realRun) apply(a faults.Action) error {
	t := &target{r: r}
	a.Apply(t)
	return t.err
}

// endFaults ends the fault phase: cuts heal, holds and pauses end.
func (r *realRun) endFaults() {
	r.mu.Lock()
	clear(r.pausedUntil)
	r.mu.Unlock()
	for _, row := range r.proxies {
		for _, p := range row {
			p.Heal(simnet.Request)
			p.Heal(simnet.Response)
			p.Release()
		}
	}
}

// target carries plan actions out on the real run ([faults.Target]).
type target struct {
	r   *realRun
	err error
}

func (t *target) unsupported(what string) {
	if t.err == nil {
		t.err = fmt.Errorf("validate: %s: %w", what, ErrUnsupported)
	}
}

// node returns the instance index of a client name, or the broker index
// of a server name (coordinator: -1), and whether it is a client. The
// names are the topology's.
func (t *target) node(name string) (idx int, client bool, ok bool) {
	if name == t.r.topo.CoordinatorName() {
		return -1, false, true
	}
	for i := range t.r.proxies {
		if name == world.InstanceName(i) {
			return i, true, true
		}
	}
	for j := range t.r.brokers {
		if name == t.r.topo.BrokerName(j) {
			return j, false, true
		}
	}
	return 0, false, false
}

// links returns the proxies between a client and a server (every broker
// for the coordinator).
func (t *target) links(client, server int) []*proxy.Proxy {
	if server < 0 {
		return t.r.proxies[client]
	}
	return []*proxy.Proxy{t.r.proxies[client][server]}
}

// Stall has no real counterpart here: the proxy cannot stop a broker's
// request handlers while its network threads run.
func (t *target) Stall(node string, d time.Duration) { t.unsupported("stall " + node) }

// Shutdown: validate runs one broker without a controller.
func (t *target) Shutdown(node string, d time.Duration) { t.unsupported("shutdown " + node) }

// ArmDelay and ArmDuplicate (the explorer's actions) are not driven
// through the proxy yet.
func (t *target) ArmDelay(dir simnet.Direction, n int64, client, server string) {
	t.unsupported("delay " + client + ">" + server)
}

// ArmDuplicate: see ArmDelay.
func (t *target) ArmDuplicate(dir simnet.Direction, n int64, client, server string) {
	t.unsupported("duplicate " + client + ">" + server)
}

// AbortTransaction: the real run has no admin client.
func (t *target) AbortTransaction(a faults.AbortTxn) {
	t.unsupported("abort-transaction " + a.Admin)
}

// lateKeys are the Kafka API keys of the request types a late rule may
// name (faults.LateTypes) that a client sends; the server-to-server ones
// have no real counterpart here.
var lateKeys = map[string]int16{"Produce": 0, "OffsetFetch": 9, "InitProducerId": 22, "AddPartitionsToTxn": 24,
	"AddOffsetsToTxn": 25, "EndTxn": 26, "TxnOffsetCommit": 28}

// ArmLate holds one request late in the proxy (Proxy.ArmLate): by type,
// the n-th request of that API key on the link (on the coordinator link,
// every proxy of the client counts its own, and the first, which the
// coordinator's requests take, is armed, as for a drop); without a type,
// the n-th modelled request.
func (t *target) ArmLate(typ string, n int64, client, server string, d time.Duration) {
	ci, cc, ok1 := t.node(client)
	si, sc, ok2 := t.node(server)
	if !ok1 || !ok2 || !cc || sc {
		t.unsupported("late " + typ + " " + client + ">" + server + " (only from a producer to a server)")
		return
	}
	key := int16(-1)
	if typ != "" {
		k, ok := lateKeys[typ]
		if !ok {
			t.unsupported("late " + typ + " (a request between servers)")
			return
		}
		key = k
	}
	ps := t.links(ci, si)
	if si < 0 {
		ps = ps[:1]
	}
	for _, p := range ps {
		p.ArmLate(key, si < 0, n, t.r.d(d))
	}
}

func (t *target) DeleteRecords(server string, _ int32, _ int64) {
	t.unsupported("delete-records " + server)
}

func (t *target) ElectPreferred([]int32) { t.unsupported("elect-preferred") }

func (t *target) Reassign(part int32, _ []string) {
	t.unsupported("reassign p" + strconv.Itoa(int(part)))
}

func (t *target) Pause(node string, d time.Duration) {
	i, client, ok := t.node(node)
	if !ok {
		t.unsupported("pause " + node)
		return
	}
	until := time.Now().Add(t.r.d(d))
	if client {
		t.r.mu.Lock()
		t.r.pausedUntil[i] = until
		t.r.mu.Unlock()
	}
	for ci, row := range t.r.proxies {
		for bj, p := range row {
			if client && ci == i || !client && (i < 0 || bj == i) {
				p.Hold(simnet.Request, until)
				p.Hold(simnet.Response, until)
			}
		}
	}
}

func (t *target) Crash(node string) {
	i, client, ok := t.node(node)
	if !ok || !client {
		t.unsupported("crash " + node + " (only producer instances crash in validate)")
		return
	}
	r := t.r
	// The process dies: nothing more reaches it or leaves it. Refuse
	// its connections while the client shuts down, so it cannot send
	// again before it is gone.
	for _, p := range r.proxies[i] {
		p.Cut(simnet.Request)
		p.Cut(simnet.Response)
		p.DropAll()
	}
	r.mu.Lock()
	cl := r.inst[i]
	r.inst[i] = nil
	r.gen[i]++
	r.down[i] = true
	if !r.cfg.Fault.ProducerResend {
		clear(r.unresolved[i])
	}
	r.mu.Unlock()
	if cl != nil {
		cl.close()
	}
	for _, p := range r.proxies[i] {
		p.Heal(simnet.Request)
		p.Heal(simnet.Response)
	}
}

func (t *target) Restart(node string, _ bool) {
	i, client, ok := t.node(node)
	if !ok || !client {
		t.unsupported("restart " + node + " (only producer instances restart in validate)")
		return
	}
	r := t.r
	if err := r.startInstance(i); err != nil {
		t.err = err
		return
	}
	r.mu.Lock()
	cl, gen := r.inst[i], r.gen[i]
	ids := make([]int64, 0, len(r.unresolved[i]))
	for n := range r.unresolved[i] {
		ids = append(ids, n)
	}
	slices.Sort(ids)
	parts := make([]int32, len(ids))
	for k, n := range ids {
		parts[k] = r.unresolved[i][n]
	}
	r.mu.Unlock()
	for k, n := range ids {
		r.produce(context.Background(), cl, i, gen, n, parts[k])
	}
}

func (t *target) Cut(from, to string) {
	t.cut(from, to, true)
}

func (t *target) Heal(from, to string) {
	t.cut(from, to, false)
}

func (t *target) cut(from, to string, on bool) {
	fi, fc, ok1 := t.node(from)
	ti, tc, ok2 := t.node(to)
	if !ok1 || !ok2 || fc == tc {
		t.unsupported("cut " + from + ">" + to + " (only between a producer and a server)")
		return
	}
	dir := simnet.Request
	ci, si := fi, ti
	if !fc {
		dir, ci, si = simnet.Response, ti, fi
	}
	for _, p := range t.links(ci, si) {
		if on {
			p.Cut(dir)
		} else {
			p.Heal(dir)
		}
	}
}

func (t *target) ArmDrop(dir simnet.Direction, n int64, client, server string) {
	ci, _, ok1 := t.node(client)
	si, _, ok2 := t.node(server)
	if !ok1 || !ok2 {
		t.unsupported("drop on " + client + ">" + server)
		return
	}
	ps := t.links(ci, si)
	if si < 0 {
		ps = ps[:1] // the coordinator's link: one numbering
	}
	for _, p := range ps {
		p.ArmDrop(si < 0, dir, n)
	}
}

func (t *target) SetDrift(node string, _ int32) {
	t.unsupported("drift " + node + " (a real process's clock cannot be made to drift)")
}

func (t *target) ArmReject(n int64, client, server, code string, part int32) {
	ci, _, ok1 := t.node(client)
	si, _, ok2 := t.node(server)
	if !ok1 || !ok2 || si < 0 {
		t.unsupported("reject on " + client + ">" + server)
		return
	}
	var c int16
	switch code {
	case "NOT_ENOUGH_REPLICAS":
		c = kerr.NotEnoughReplicas.Code
	case "NOT_LEADER_OR_FOLLOWER":
		c = kerr.NotLeaderForPartition.Code
	default:
		t.unsupported("reject with " + code)
		return
	}
	t.r.proxies[ci][si].ArmReject(n, c, part)
}

// count reads the topic's log from the brokers directly (not through the
// proxies) as a read_committed consumer and counts it like the
// simulator's checker does (check.Counts).
func (r *realRun) count(ctx context.Context) (Counts, error) {
	var c Counts
	r.mu.Lock()
	c.Sent = r.cfg.App.Records
	for n := range r.outcome {
		if r.acked[n] {
			c.Acked++
		} else {
			c.Failed++
		}
	}
	for _, u := range r.unresolved {
		c.Pending += int64(len(u))
	}
	c.Errors = map[string]int64{}
	for k, v := range r.errs {
		c.Errors[k] += v
	}
	r.mu.Unlock()
	for _, row := range r.proxies {
		for _, p := range row {
			st := p.Stats()
			if proxyStatsHook != nil {
				proxyStatsHook(st)
			}
			for k, v := range st.Errors {
				c.Errors[k] += v
			}
			c.Fenced += st.Fenced
		}
	}
	logs, err := r.readLog(ctx)
	if err != nil {
		return c, err
	}
	seen := map[model.RecordID]bool{}
	for _, log := range logs {
		maxN := map[int32]int64{}
		for _, id := range log {
			c.Appended++
			if seen[id] {
				c.Duplicates++
				continue
			}
			seen[id] = true
			if m, ok := maxN[id.App]; ok && id.N < m {
				c.Reordered++
			} else {
				maxN[id.App] = id.N
			}
		}
	}
	r.mu.Lock()
	for n := range r.acked {
		if !seen[model.RecordID{App: 0, N: n}] {
			c.LostAcked++
		}
	}
	r.mu.Unlock()
	return c, nil
}

// readLog returns every partition's records, as record ids, in offset
// order.
func (r *realRun) readLog(ctx context.Context) ([][]model.RecordID, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.brokers...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.DialTimeout(time.Second))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	parts := int32(r.cfg.Partitions)
	lo := kmsg.NewPtrListOffsetsRequest()
	lo.IsolationLevel = 1
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = r.topic
	for p := int32(0); p < parts; p++ {
		lp := kmsg.NewListOffsetsRequestTopicPartition()
		lp.Partition = p
		lp.Timestamp = -1
		lt.Partitions = append(lt.Partitions, lp)
	}
	lo.Topics = append(lo.Topics, lt)
	ends := make([]int64, parts)
	shards := cl.RequestSharded(ctx, lo)
	for _, sh := range shards {
		if sh.Err != nil {
			return nil, fmt.Errorf("list offsets: %w", sh.Err)
		}
		resp := sh.Resp.(*kmsg.ListOffsetsResponse)
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return nil, fmt.Errorf("list offsets: %w", err)
				}
				ends[p.Partition] = p.Offset
			}
		}
	}
	offs := map[int32]kgo.Offset{}
	for p := int32(0); p < parts; p++ {
		offs[p] = kgo.NewOffset().AtStart()
	}
	cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{r.topic: offs})
	logs := make([][]model.RecordID, parts)
	next := make([]int64, parts)
	done := func() bool {
		for p := range next {
			if next[p] < ends[p] {
				return false
			}
		}
		return true
	}
	// A read_committed fetch returns nothing for aborted records and
	// transaction markers at the end of a partition, so a poll that
	// waits in vain twice ends the reading (on loopback a fetch answers
	// in well under the wait).
	empty := 0
	for !done() && empty < 2 {
		pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		fs := cl.PollFetches(pctx)
		timedOut := pctx.Err() != nil
		cancel()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reading the log: %w", ctx.Err())
		}
		if timedOut && fs.NumRecords() == 0 {
			empty++
			continue
		}
		empty = 0
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil && !kerr.IsRetriable(ferr) {
			return nil, fmt.Errorf("reading the log: %w", ferr)
		}
		fs.EachRecord(func(rec *kgo.Record) {
			if id, ok := parsePayload(rec.Value); ok {
				logs[rec.Partition] = append(logs[rec.Partition], id)
			}
			if rec.Offset+1 > next[rec.Partition] {
				next[rec.Partition] = rec.Offset + 1
			}
		})
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			if p.HighWatermark >= ends[p.Partition] && p.LastStableOffset >= ends[p.Partition] && len(p.Records) == 0 && next[p.Partition] < ends[p.Partition] {
				// Only control records (transaction markers) remain.
				next[p.Partition] = ends[p.Partition]
			}
		})
	}
	return logs, nil
}

// kgoTxn is kgo's transactional API for the application (txnapp.go):
// BeginTransaction, then Flush and EndTransaction, committing unless a
// record failed or the flush did.
type kgoTxn struct {
	cl     *kgo.Client
	app    *txnApp
	ctx    context.Context
	cancel context.CancelFunc
	// wait bounds a transaction's flush and end: a fenced kgo client
	// can wait for ever on its abort; the application gives up after
	// its own timeout.
	wait time.Duration
}

func newKgoTxn(cl *kgo.Client, per, records int, wait time.Duration, onDelivered func()) *kgoTxn {
	ctx, cancel := context.WithCancel(context.Background())
	k := &kgoTxn{cl: cl, ctx: ctx, cancel: cancel, wait: wait}
	k.app = newTxnApp(k, per, records, onDelivered)
	return k
}

func (k *kgoTxn) produce(n int64, part int32, done func(error, string)) { k.app.produce(n, part, done) }
func (k *kgoTxn) finish()                                               { k.app.finish() }

func (k *kgoTxn) close() {
	k.cancel()
	k.cl.Close()
	k.app.shutdown()
}

func (k *kgoTxn) begin() error { return k.cl.BeginTransaction() }

func (k *kgoTxn) send(m *txnMember) error {
	k.cl.Produce(k.ctx, &kgo.Record{Value: payload(0, m.rec.n), Partition: m.rec.part}, func(_ *kgo.Record, err error) {
		if err != nil {
			k.app.failed(m, err)
		} else {
			k.app.delivered()
		}
	})
	return nil
}

func (k *kgoTxn) end(open []*txnMember) {
	ctx, cancel := context.WithTimeout(k.ctx, k.wait)
	defer cancel()
	commit := kgo.TryCommit
	if err := k.cl.Flush(ctx); err != nil || len(k.app.ok(open)) < len(open) {
		commit = kgo.TryAbort
	}
	switch err := k.cl.EndTransaction(ctx, commit); {
	case err != nil:
		k.app.fail(open, err)
	case commit == kgo.TryAbort:
		k.app.aborted(open)
	default:
		k.app.committed(open)
	}
}

func (k *kgoTxn) errName(err error) string { return txnErrName(err) }

// txnErrName names an error for the report ("" for the client closing).
// A transactional producer's INVALID_PRODUCER_EPOCH is its fencing, as
// the Java client and idemsim report it (PRODUCER_FENCED).
func txnErrName(err error) string {
	var ke *kerr.Error
	switch {
	case errors.Is(err, kgo.ErrClientClosed), errors.Is(err, context.Canceled):
		return ""
	case errors.Is(err, kerr.InvalidProducerEpoch), errors.Is(err, kerr.ProducerFenced):
		return "PRODUCER_FENCED(fatal)"
	case errors.As(err, &ke):
		return ke.Message + "(fatal)"
	}
	return "CLIENT(" + err.Error() + ")"
}
