package groupapp

import (
	"context"
	"errors"
	"fmt"
	stdnet "net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/idemsim/idemsim/internal/validate/proxy"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Pause pauses instance Instance (0-based) At after the start, or
// when the instance begins its first transaction if that is later, For
// long, on the simulated clock (Spec.Scale applies).
type Pause struct {
	Instance int
	At, For  time.Duration
}

// Spec is one real run of the group application.
type Spec struct {
	// Instances is the number of application instances (≥ 1); Partitions
	// the input topic's partitions (≥ 1); Records the input records,
	// written round robin over the partitions before the instances
	// start; PerTxn the records a transaction takes at most (≥ 1).
	Instances, Partitions, Records, PerTxn int
	// Interval is the processing time of one record, on the simulated
	// clock: an instance hands its output records over one per Interval
	// (the simulated application's send.interval.ms).
	Interval time.Duration
	// SessionTimeout, RebalanceTimeout and TransactionTimeout are
	// session.timeout.ms, max.poll.interval.ms and
	// transaction.timeout.ms, on the simulated clock.
	SessionTimeout, RebalanceTimeout, TransactionTimeout time.Duration
	// Pauses are the process pauses.
	Pauses []Pause
	// Scale multiplies every simulated duration (0 < Scale ≤ 1).
	Scale float64
	// Deadline bounds the run in real time (default a minute).
	Deadline time.Duration
	// Seed seeds the proxies' draws.
	Seed uint64
	// Encode makes input record n's value, and Decode reads an output
	// value back (false: not a record the run wrote).
	Encode func(n int64) []byte
	Decode func(v []byte) (int64, bool)
	// Logger, if set, logs the real clients (kgo's).
	Logger kgo.Logger
	// Client is the application's client: "" or ClientFranzGo for
	// franz-go's GroupTransactSession, ClientSarama for sarama's
	// (sarama.go). GroupIDOnly (sarama only) commits the offsets with
	// the group id alone, the deprecated form, instead of the
	// consumer's group metadata.
	Client      string
	GroupIDOnly bool
}

// The applications' clients (Spec.Client).
const (
	ClientFranzGo = "franz-go"
	ClientSarama  = "sarama"
)

// Counts are what a real group run produced.
type Counts struct {
	// Input is the number of input records; Output the committed output
	// records (read_committed), Unique the distinct input records among
	// them, Duplicates Output − Unique, Lost the input records with no
	// committed output.
	Input, Output, Unique, Duplicates, Lost int64
	// Aborted is the number of output records written but not committed
	// (read_uncommitted minus read_committed).
	Aborted int64
	// Commits and Aborts count the application's transaction ends.
	Commits, Aborts int64
	// Errors counts error codes in the group and offset answers the
	// instances received, by request and Kafka name ("TxnOffsetCommit
	// ILLEGAL_GENERATION", "OffsetFetch UNSTABLE_OFFSET_COMMIT", ...).
	Errors map[string]int64
	// MemberRefused counts the group answers that told an instance it
	// is no longer the member it thinks (ILLEGAL_GENERATION,
	// UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID, to any group request),
	// and CommitsRefused those of them that answered TxnOffsetCommit.
	// kgo's GroupTransactSession aborts, without committing offsets,
	// when a heartbeat's refusal came first (End's revoked or lost
	// check), so a zombie is often fenced by a heartbeat answer rather
	// than by its commit. Fenced counts the produce and transaction
	// answers that fenced a producer epoch (the proxies' Fenced).
	MemberRefused, CommitsRefused, Fenced int64
	// Finished: every input offset was committed before the deadline.
	Finished bool
}

// Check reports what is wrong with spec, or nil.
func (s *Spec) Check() error {
	switch {
	case s.Instances < 1 || s.Instances > 16:
		return fmt.Errorf("instances %d (allowed: 1 to 16)", s.Instances)
	case s.Partitions < 1 || s.Partitions > 64:
		return fmt.Errorf("input partitions %d (allowed: 1 to 64)", s.Partitions)
	case s.Records < 1 || s.Records > 1_000_000:
		return fmt.Errorf("records %d (allowed: 1 to 1000000)", s.Records)
	case s.PerTxn < 1:
		return fmt.Errorf("records per transaction %d (allowed: 1 or more)", s.PerTxn)
	case s.Interval < 0:
		return fmt.Errorf("processing interval %v (allowed: 0 or more)", s.Interval)
	case s.Encode == nil || s.Decode == nil:
		return fmt.Errorf("no record encoding (Encode, Decode)")
	case s.Scale <= 0 || s.Scale > 1:
		return fmt.Errorf("time scale %g (allowed: above 0, at most 1)", s.Scale)
	case s.Client != "" && s.Client != ClientFranzGo && s.Client != ClientSarama:
		return fmt.Errorf("client %q (allowed: %s, %s)", s.Client, ClientFranzGo, ClientSarama)
	case s.GroupIDOnly && s.Client != ClientSarama:
		return fmt.Errorf("offsets with the group id alone need the sarama application (kgo's GroupTransactSession always sends the group metadata)")
	}
	for _, p := range s.Pauses {
		if p.Instance < 0 || p.Instance >= s.Instances || p.At < 0 || p.For <= 0 {
			return fmt.Errorf("pause of instance %d at %v for %v (allowed: an instance of the run, a start ≥ 0, a length > 0)", p.Instance, p.At, p.For)
		}
	}
	return nil
}

// groupRun is the state of one real group run.
type groupRun struct {
	spec    Spec
	cluster *kfake.Cluster
	broker  string
	proxies []*proxy.Proxy
	start   time.Time

	mu              sync.Mutex
	commits, aborts int64
	// paused[i] are instance i's pauses, from and until (guarded by
	// mu); began[i] is closed when instance i first begins a
	// transaction.
	paused    [][][2]time.Time
	began     []chan struct{}
	beganOnce []sync.Once
}

const (
	groupInput  = "idemsim-in"
	groupOutput = "idemsim-out"
	groupName   = "idemsim-group"
)

func (g *groupRun) d(x time.Duration) time.Duration {
	return time.Duration(float64(x) * g.spec.Scale)
}

// Run runs spec once and counts its committed output.
func Run(ctx context.Context, spec Spec) (Counts, error) {
	if err := spec.Check(); err != nil {
		return Counts{}, err
	}
	if spec.Deadline <= 0 {
		spec.Deadline = time.Minute
	}
	g := &groupRun{spec: spec}
	defer g.close()
	runCtx, cancel := context.WithTimeout(ctx, spec.Deadline)
	defer cancel()
	if err := g.setup(runCtx); err != nil {
		return Counts{}, err
	}
	finished, err := g.drive(runCtx)
	if err != nil {
		return Counts{}, err
	}
	// The output is read after the run, within a bound of its own.
	readCtx, cancelRead := context.WithTimeout(ctx, 10*time.Second)
	defer cancelRead()
	c, err := g.count(readCtx)
	if err != nil {
		return Counts{}, err
	}
	c.Finished = finished
	return c, nil
}

// setup starts a one-broker kfake cluster with the two topics, writes the
// input, and puts a proxy in front of the broker for each instance.
func (g *groupRun) setup(ctx context.Context) error {
	s := &g.spec
	c, err := kfake.NewCluster(kfake.NumBrokers(1),
		kfake.SeedTopics(int32(s.Partitions), groupInput), kfake.SeedTopics(int32(s.Partitions), groupOutput),
		kfake.GroupMinSessionTimeout(10*time.Millisecond),
		kfake.ListenFn(func(network, _ string) (stdnet.Listener, error) { return stdnet.Listen(network, "127.0.0.1:0") }))
	if err != nil {
		return fmt.Errorf("kfake: %w", err)
	}
	g.cluster = c
	g.broker = c.ListenAddrs()[0]
	w, err := kgo.NewClient(kgo.SeedBrokers(g.broker), kgo.DefaultProduceTopic(groupInput), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return err
	}
	defer w.Close()
	recs := make([]*kgo.Record, 0, s.Records)
	for n := 0; n < s.Records; n++ {
		recs = append(recs, &kgo.Record{Partition: int32(n % s.Partitions), Value: s.Encode(int64(n))})
	}
	if err := w.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("writing the input: %w", err)
	}
	for i := 0; i < s.Instances; i++ {
		p, err := proxy.New(proxy.Config{Client: world.InstanceName(i), Server: "b1", Coordinator: "c1", Upstream: g.broker,
			Seed: s.Seed*1000003 + uint64(i)})
		if err != nil {
			return err
		}
		g.proxies = append(g.proxies, p)
	}
	return nil
}

// close ends the proxies and the cluster.
func (g *groupRun) close() {
	for _, p := range g.proxies {
		p.Close()
	}
	if g.cluster != nil {
		g.cluster.Close()
	}
}

// session opens instance i's GroupTransactSession through its proxy.
// The client lives on ctx (kgo.WithContext), which drive cancels when
// the run ends, before it closes the client: kgo sends a member's
// JoinGroup and SyncGroup on the client's context, not the group's
// (pkg/kgo/consumer_group.go joinAndSync), and Close waits for the
// member's group management to end. A member in the middle of a
// rebalance when the run ended (cut by its deadline or -budget, or at
// the end, when the other instance's leave starts one) kept Close
// waiting until kfake answered, up to the rebalance timeout later (30 s
// at time scale 0.1).
func (g *groupRun) session(ctx context.Context, i int) (*kgo.GroupTransactSession, error) {
	s := &g.spec
	via := g.proxies[i].Addr()
	dialer := func(ctx context.Context, network, host string) (stdnet.Conn, error) {
		if host != g.broker && host != via {
			return nil, fmt.Errorf("groupapp: refusing to dial %s, which is not the run's broker", host)
		}
		var d stdnet.Dialer
		return d.DialContext(ctx, network, via)
	}
	opts := []kgo.Opt{
		kgo.WithContext(ctx),
		kgo.SeedBrokers(g.broker),
		kgo.Dialer(dialer),
		kgo.ClientID("idemsim-" + world.InstanceName(i)),
		kgo.TransactionalID("idemsim-" + strconv.Itoa(i)),
		kgo.TransactionTimeout(max(g.d(s.TransactionTimeout), time.Second)),
		kgo.ConsumerGroup(groupName),
		kgo.ConsumeTopics(groupInput),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RequireStableFetchOffsets(),
		kgo.SessionTimeout(max(g.d(s.SessionTimeout), 100*time.Millisecond)),
		kgo.RebalanceTimeout(max(g.d(s.RebalanceTimeout), 200*time.Millisecond)),
		kgo.HeartbeatInterval(max(g.d(s.SessionTimeout)/3, 20*time.Millisecond)),
		kgo.FetchMaxWait(50 * time.Millisecond),
		kgo.DefaultProduceTopic(groupOutput),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.AlwaysRetryEOF(),
	}
	if s.Logger != nil {
		opts = append(opts, kgo.WithLogger(s.Logger))
	}
	return kgo.NewGroupTransactSession(opts...)
}

// pausedUntil returns when instance i's current pause ends, or the zero
// time when it is not paused at now.
func (g *groupRun) pausedUntil(i int, now time.Time) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, w := range g.paused[i] {
		if !now.Before(w[0]) && now.Before(w[1]) {
			return w[1]
		}
	}
	return time.Time{}
}

// pause runs pause p: at its time, once its instance has begun a
// transaction (as the simulated pause lands in one: the real instance
// joins its group later than the simulated one on a loaded machine),
// the instance's proxy holds both directions and its loop stops for the
// pause's length.
func (g *groupRun) pause(ctx context.Context, p Pause) {
	if SleepUntil(ctx, g.start.Add(g.d(p.At))) != nil {
		return
	}
	select {
	case <-g.began[p.Instance]:
	case <-ctx.Done():
		return
	}
	from := time.Now()
	until := from.Add(g.d(p.For))
	g.mu.Lock()
	g.paused[p.Instance] = append(g.paused[p.Instance], [2]time.Time{from, until})
	g.mu.Unlock()
	px := g.proxies[p.Instance]
	px.Hold(simnet.Request, until)
	px.Hold(simnet.Response, until)
	// The pause ends at its end, or at the run's (ctx ends first only
	// when the run is cut): a held request would keep its client, and
	// so the instance's close, waiting until the hold's end.
	_ = SleepUntil(ctx, until)
	px.Release()
}

// drive runs the instances until every input offset is committed (true)
// or the deadline passes (false).
func (g *groupRun) drive(ctx context.Context) (bool, error) {
	s := &g.spec
	var sessions []*kgo.GroupTransactSession
	var sinsts []*saramaInst
	// The sessions' clients live on sessCtx (session), canceled before
	// they close.
	sessCtx, stopSessions := context.WithCancel(ctx)
	defer stopSessions()
	for i := 0; i < s.Instances; i++ {
		var err error
		if s.Client == ClientSarama {
			var si *saramaInst
			if si, err = g.newSaramaInst(ctx, i); err == nil {
				sinsts = append(sinsts, si)
			}
		} else {
			var sess *kgo.GroupTransactSession
			if sess, err = g.session(sessCtx, i); err == nil {
				sessions = append(sessions, sess)
			}
		}
		if err != nil {
			stopSessions()
			for _, o := range sessions {
				o.Close()
			}
			for _, o := range sinsts {
				o.close()
			}
			return false, err
		}
	}
	g.start = time.Now()
	// The pauses' holds: each proxy holds both directions over its
	// instance's pause.
	appCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	g.paused = make([][][2]time.Time, s.Instances)
	g.began = make([]chan struct{}, s.Instances)
	g.beganOnce = make([]sync.Once, s.Instances)
	for i := range g.began {
		g.began[i] = make(chan struct{})
	}
	for _, p := range s.Pauses {
		wg.Add(1)
		go func(p Pause) {
			defer wg.Done()
			g.pause(appCtx, p)
		}(p)
	}
	for i, sess := range sessions {
		wg.Add(1)
		go func(i int, sess *kgo.GroupTransactSession) {
			defer wg.Done()
			g.loop(ctx, appCtx, i, sess)
		}(i, sess)
	}
	for _, si := range sinsts {
		wg.Add(1)
		go func(si *saramaInst) {
			defer wg.Done()
			si.run(appCtx)
		}(si)
	}
	finished := g.waitCommitted(ctx)
	// A paused instance resumes and ends its transaction before the
	// instances stop polling: an open transaction would hold the output's
	// last stable offset. A pause still waiting for its instance's first
	// transaction does not start any more.
	g.mu.Lock()
	var resume time.Time
	for _, ws := range g.paused {
		for _, w := range ws {
			if w[1].After(resume) {
				resume = w[1]
			}
		}
	}
	g.mu.Unlock()
	if SleepUntil(ctx, resume) != nil {
		finished = false
	}
	stop()
	wg.Wait()
	// The run is over (every input offset is committed, or its time is
	// up) and nothing reads the group again: the clients close without
	// sending their LeaveGroups, which a member in the middle of a
	// rebalance would send only after it (session).
	stopSessions()
	for _, sess := range sessions {
		sess.Close()
	}
	for _, si := range sinsts {
		si.close()
	}
	return finished, nil
}

// loop is instance i's consume-transform-produce loop. It polls until
// pollCtx ends; a transaction it began ends (within ctx, the run's).
func (g *groupRun) loop(ctx, pollCtx context.Context, i int, sess *kgo.GroupTransactSession) {
	for pollCtx.Err() == nil {
		if until := g.pausedUntil(i, time.Now()); !until.IsZero() {
			if SleepUntil(ctx, until) != nil {
				return
			}
			continue
		}
		fs := sess.PollRecords(pollCtx, g.spec.PerTxn)
		if pollCtx.Err() != nil {
			return
		}
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		if err := sess.Begin(); err != nil {
			return
		}
		g.beganOnce[i].Do(func() { close(g.began[i]) })
		next := time.Now()
		for _, r := range recs {
			next = next.Add(g.d(g.spec.Interval))
			if SleepUntil(ctx, next) != nil {
				break
			}
			sess.Produce(ctx, &kgo.Record{Partition: r.Partition, Value: r.Value}, nil)
		}
		// A pause that starts while the transaction is open holds the
		// loop here, before the end, as the simulated pause does.
		if until := g.pausedUntil(i, time.Now()); !until.IsZero() {
			if SleepUntil(ctx, until) != nil {
				return
			}
		}
		committed, err := sess.End(ctx, kgo.TryCommit)
		g.mu.Lock()
		if committed && err == nil {
			g.commits++
		} else {
			g.aborts++
		}
		g.mu.Unlock()
	}
}

// waitCommitted waits until the group's committed offsets reach the end
// of every input partition, polling through its own client (no proxy).
func (g *groupRun) waitCommitted(ctx context.Context) bool {
	cl, err := kgo.NewClient(kgo.SeedBrokers(g.broker))
	if err != nil {
		return false
	}
	defer cl.Close()
	want := int64(g.spec.Records)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if committedTotal(ctx, cl) >= want {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// count reads the output topic twice (read_committed and
// read_uncommitted) and counts duplicates, losses and aborted records.
func (g *groupRun) count(ctx context.Context) (Counts, error) {
	c := Counts{Input: int64(g.spec.Records), Errors: map[string]int64{}}
	committed, err := readOutput(ctx, g.broker, true, g.spec.Decode)
	if err != nil {
		return c, err
	}
	all, err := readOutput(ctx, g.broker, false, g.spec.Decode)
	if err != nil {
		return c, err
	}
	seen := map[int64]int64{}
	for _, n := range committed {
		seen[n]++
	}
	c.Output, c.Unique = int64(len(committed)), int64(len(seen))
	c.Duplicates = c.Output - c.Unique
	c.Lost = c.Input - c.Unique
	c.Aborted = int64(len(all)) - c.Output
	g.mu.Lock()
	c.Commits, c.Aborts = g.commits, g.aborts
	g.mu.Unlock()
	for _, p := range g.proxies {
		st := p.Stats()
		for k, v := range st.GroupErrors {
			c.Errors[k] += v
		}
		c.Fenced += st.Fenced
	}
	for k, v := range c.Errors {
		if api, code, _ := strings.Cut(k, " "); code == "ILLEGAL_GENERATION" || code == "UNKNOWN_MEMBER_ID" || code == "FENCED_INSTANCE_ID" {
			c.MemberRefused += v
			if api == "TxnOffsetCommit" {
				c.CommitsRefused += v
			}
		}
	}
	return c, nil
}

// errBadOutput marks an output record the run did not write.
var errBadOutput = errors.New("groupapp: an output record the application did not write")

// readOutput reads every output record's input number, committed ones
// only or all. The run is over, so the log no longer grows: the read ends
// at the first poll that brings nothing for half a second.
func readOutput(ctx context.Context, broker string, committed bool, decode func([]byte) (int64, bool)) ([]int64, error) {
	iso := kgo.ReadUncommitted()
	if committed {
		iso = kgo.ReadCommitted()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.ConsumeTopics(groupOutput), kgo.FetchIsolationLevel(iso),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(20*time.Millisecond))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var out []int64
	for {
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reading the output: %w", ctx.Err())
		}
		n := 0
		var bad error
		fs.EachRecord(func(r *kgo.Record) {
			n++
			n, ok := decode(r.Value)
			if !ok {
				bad = errBadOutput
				return
			}
			out = append(out, n)
		})
		if bad != nil {
			return nil, bad
		}
		if n == 0 {
			return out, nil
		}
	}
}

// committedTotal returns the sum of the group's committed input offsets
// (-1 on an error: not there yet).
func committedTotal(ctx context.Context, cl *kgo.Client) int64 {
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = groupName
	req.RequireStable = true
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || resp.ErrorCode != 0 {
		return -1
	}
	var sum int64
	for _, t := range resp.Topics {
		if t.Topic != groupInput {
			continue
		}
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return -1
			}
			if p.Offset > 0 {
				sum += p.Offset
			}
		}
	}
	return sum
}

// SleepUntil waits until t or ctx's end, and returns ctx's error then (at
// once when t has passed). The real runs of internal/validate use it too.
func SleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}
