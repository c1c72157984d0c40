package admin

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Admin is the admin client process (a [model.Server] to the World: it
// is only ever the client end of its connections). It starts idle; each
// [Admin.Abort] queues an operator command, and the commands run one
// after the other. A crash loses the commands under way, as a killed
// kafka-transactions.sh does.
type Admin struct {
	cfg     Config
	leaders []int32
	// needMeta: the leaders are to be looked up again; metaBroker is the
	// broker the next Metadata request goes to.
	needMeta   bool
	metaBroker int32
	cmds       []command
	inflight   []request
	nextCorr   int64
	token      uint64
	out, fin   []model.Out
	obs        []model.Obs
}

// command steps.
const (
	stDescribe     uint8 = iota // DescribeProducers to the leader
	stList                      // ListTransactions to the coordinator
	stDescribeTxns              // DescribeTransactions to the coordinator
	stAbort                     // WriteTxnMarkers to the leader, one per hanging transaction
)

// command is an operator command under way.
type command struct {
	spec     AbortSpec
	step     uint8
	deadline sim.Time
	// retryAt: no request before (after an error or a broken connection).
	retryAt sim.Time
	// open are the producers with an open transaction (find-hanging);
	// ids their transactional ids as ListTransactions gave them ("" for
	// none); abort the transactions to abort, next the next of them.
	open  []model.ProducerState
	ids   []string
	abort []model.ProducerState
	next  int
}

type reqKind uint8

const (
	reqCmd reqKind = iota
	reqMeta
)

// request is a request in flight.
type request struct {
	corr     int64
	kind     reqKind
	dest     int32
	deadline sim.Time
}

// New returns an admin client with configuration cfg.
func New(cfg Config) *Admin {
	a := &Admin{}
	a.Reset(cfg)
	return a
}

// Reset makes a a new admin client with configuration cfg, keeping
// memory.
func (a *Admin) Reset(cfg Config) {
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = 100 * time.Millisecond
	}
	if cfg.APITimeout <= 0 {
		cfg.APITimeout = 60 * time.Second
	}
	*a = Admin{cfg: cfg, leaders: append(a.leaders[:0], cfg.Leaders...), cmds: a.cmds[:0], inflight: a.inflight[:0],
		out: a.out[:0], fin: a.fin[:0], obs: a.obs[:0], token: a.token}
}

// Start starts the admin client: it has nothing to do until a command.
func (a *Admin) Start(sim.Time) []model.Out { return nil }

// Abort queues an operator's abort command.
func (a *Admin) Abort(now sim.Time, s AbortSpec) []model.Out {
	a.begin()
	a.cmds = append(a.cmds, command{spec: s, deadline: now.Add(a.cfg.APITimeout)})
	if len(a.cmds) == 1 {
		a.startCmd(now)
	}
	a.drive(now)
	return a.end(now)
}

// startCmd starts the first command: the explicit abort writes its
// marker at once, the others describe the producers first.
func (a *Admin) startCmd(now sim.Time) {
	c := &a.cmds[0]
	c.deadline = now.Add(a.cfg.APITimeout)
	if c.spec.PID != model.NoProducerID {
		c.step = stAbort
		c.abort = append(c.abort[:0], model.ProducerState{PID: c.spec.PID, Epoch: c.spec.Epoch, CoordinatorEpoch: c.spec.CoordinatorEpoch, TxnStartOffset: -1})
	}
}

func (a *Admin) begin() {
	a.out = a.out[:0]
	a.obs = a.obs[:0]
}

// end arms the timer while commands are under way (it keeps the run
// alive: the operator waits for the tool) and turns the queued
// observations into effects.
func (a *Admin) end(now sim.Time) []model.Out {
	if len(a.cmds) > 0 {
		at := a.cmds[0].deadline
		if len(a.inflight) == 0 {
			at = min(at, a.cmds[0].retryAt)
		}
		for _, r := range a.inflight {
			at = min(at, r.deadline)
		}
		if at <= now {
			at = now.Add(a.cfg.RetryBackoff)
		}
		a.token++
		a.out = append(a.out, model.Out{Kind: model.OutWake, At: at, Timer: a.token, Owed: true})
	}
	// The lines first: an answer's line before the request it leads to.
	a.fin = a.fin[:0]
	for i := range a.obs {
		a.fin = append(a.fin, model.Out{Kind: model.OutObserve, Obs: &a.obs[i]})
	}
	a.fin = append(a.fin, a.out...)
	return a.fin
}

// note queues a trace line about partition part.
func (a *Admin) note(now sim.Time, part int32, err model.ErrCode, text string) {
	a.obs = append(a.obs, model.Obs{Kind: model.ObsAdmin, At: now, Partition: part, Err: err, Text: text})
}

// Wake runs the timer: request timeouts, retries, the command deadline.
func (a *Admin) Wake(now sim.Time, token uint64) []model.Out {
	a.begin()
	if token == a.token {
		a.drive(now)
	}
	return a.end(now)
}

// Crash loses the commands under way and what is in flight.
func (a *Admin) Crash() {
	a.token++
	a.cmds = a.cmds[:0]
	a.inflight = a.inflight[:0]
}

// Restart starts the admin client again, idle.
func (a *Admin) Restart(now sim.Time, clean bool) []model.Out {
	a.begin()
	a.leaders = append(a.leaders[:0], a.cfg.Leaders...)
	return a.end(now)
}

// Step handles a response or a broken connection.
func (a *Admin) Step(now sim.Time, from model.Peer, m model.Message) []model.Out {
	a.begin()
	switch m := m.(type) {
	case *model.MetadataResponse:
		if a.take(m.CorrelationID) {
			a.needMeta = false
			for i := range a.leaders {
				if i < len(m.Leaders) {
					a.leaders[i] = m.Leaders[i]
				}
			}
		}
	case *model.DescribeProducersResponse:
		if a.take(m.CorrelationID) {
			a.described(now, m)
		}
	case *model.ListTransactionsResponse:
		if a.take(m.CorrelationID) {
			a.listed(now, m)
		}
	case *model.DescribeTransactionsResponse:
		if a.take(m.CorrelationID) {
			a.describedTxns(now, m)
		}
	case *model.WriteTxnMarkersResponse:
		if a.take(m.CorrelationID) && len(m.Errs) == 1 {
			a.aborted(now, m.Errs[0])
		}
	case *model.Disconnected:
		a.failDest(now, m.Dest)
	}
	a.drive(now)
	return a.end(now)
}

// take removes the in-flight request corr, reporting whether it was.
func (a *Admin) take(corr int64) bool {
	for i, r := range a.inflight {
		if r.corr == corr {
			a.inflight = slices.Delete(a.inflight, i, i+1)
			return true
		}
	}
	return false
}

// failDest fails the requests in flight to dest (a broken connection or
// a timeout): the leaders are looked up again and the command retries
// after retry.backoff.ms.
func (a *Admin) failDest(now sim.Time, dest int32) {
	for i := 0; i < len(a.inflight); {
		r := a.inflight[i]
		if r.dest != dest {
			i++
			continue
		}
		a.inflight = slices.Delete(a.inflight, i, i+1)
		a.needMeta = true
		if r.kind == reqMeta {
			a.metaBroker = (a.metaBroker + 1) % int32(max(a.cfg.Brokers, 1))
		}
		if len(a.cmds) > 0 {
			a.cmds[0].retryAt = now.Add(a.cfg.RetryBackoff)
		}
	}
}

// send sends m to dest and tracks it.
func (a *Admin) send(now sim.Time, k reqKind, dest int32, m model.Message) {
	var corr int64
	switch m := m.(type) {
	case *model.MetadataRequest:
		corr = m.CorrelationID
	case *model.DescribeProducersRequest:
		corr = m.CorrelationID
	case *model.ListTransactionsRequest:
		corr = m.CorrelationID
	case *model.DescribeTransactionsRequest:
		corr = m.CorrelationID
	case *model.WriteTxnMarkersRequest:
		corr = m.CorrelationID
	}
	a.inflight = append(a.inflight, request{corr: corr, kind: k, dest: dest, deadline: now.Add(a.cfg.RequestTimeout)})
	a.out = append(a.out, model.Out{Kind: model.OutSend, Dest: dest, Msg: m})
}

func (a *Admin) corr() int64 {
	a.nextCorr++
	return a.nextCorr
}

// drive expires requests, gives up on a command past its deadline, and
// sends the first command's next request when nothing is in flight.
func (a *Admin) drive(now sim.Time) {
	for i := 0; i < len(a.inflight); i++ {
		if r := a.inflight[i]; now >= r.deadline {
			a.out = append(a.out, model.Out{Kind: model.OutClose, Dest: r.dest})
			a.failDest(now, r.dest)
			i = -1
		}
	}
	for len(a.cmds) > 0 {
		c := &a.cmds[0]
		if now >= c.deadline {
			a.inflight = a.inflight[:0]
			a.finish(now, model.ErrRequestTimedOut, c.spec.mode()+" p"+itoa(int64(c.spec.Partition))+" failed: default.api.timeout.ms passed")
			continue
		}
		if len(a.inflight) > 0 || now < c.retryAt {
			return
		}
		if a.needMeta && c.step != stList && c.step != stDescribeTxns {
			if a.cfg.Brokers > 0 {
				corr := a.corr()
				a.send(now, reqMeta, a.metaBroker, &model.MetadataRequest{CorrelationID: corr})
			}
			return
		}
		a.request(now, c)
		return
	}
}

// request sends command c's request for its step.
func (a *Admin) request(now sim.Time, c *command) {
	part := c.spec.Partition
	corr := a.corr()
	leader := int32(-1)
	if int(part) < len(a.leaders) {
		leader = a.leaders[part]
	}
	switch c.step {
	case stDescribe:
		if leader < 0 {
			a.needMeta, c.retryAt = true, now.Add(a.cfg.RetryBackoff)
			return
		}
		a.send(now, reqCmd, leader, &model.DescribeProducersRequest{CorrelationID: corr, Partition: part})
	case stList:
		pids := make([]model.ProducerID, len(c.open))
		for i, p := range c.open {
			pids[i] = p.PID
		}
		a.send(now, reqCmd, model.DestCoordinator, &model.ListTransactionsRequest{CorrelationID: corr, ProducerIDs: pids})
	case stDescribeTxns:
		var ids []string
		for _, id := range c.ids {
			if id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		a.send(now, reqCmd, model.DestCoordinator, &model.DescribeTransactionsRequest{CorrelationID: corr, TransactionalIDs: ids})
	case stAbort:
		if leader < 0 {
			a.needMeta, c.retryAt = true, now.Add(a.cfg.RetryBackoff)
			return
		}
		p := c.abort[c.next]
		a.send(now, reqCmd, leader, &model.WriteTxnMarkersRequest{CorrelationID: corr, Markers: []model.TxnMarker{{
			Partition: part, PID: p.PID, Epoch: p.Epoch, CoordinatorEpoch: max(p.CoordinatorEpoch, 0), Marker: model.MarkerAbort}}})
	}
}

// retry retries the first command's request after retry.backoff.ms;
// leader errors look the leader up again first.
func (a *Admin) retry(now sim.Time, e model.ErrCode) {
	if e == model.ErrNotLeaderOrFollower || e == model.ErrUnknownTopicOrPartition {
		a.needMeta = true
	}
	a.cmds[0].retryAt = now.Add(a.cfg.RetryBackoff)
}

// finish ends the first command with a last line, and starts the next.
func (a *Admin) finish(now sim.Time, e model.ErrCode, text string) {
	part := a.cmds[0].spec.Partition
	a.note(now, part, e, text)
	a.cmds = slices.Delete(a.cmds, 0, 1)
	if len(a.cmds) > 0 {
		a.startCmd(now)
	}
}

// described handles DescribeProducers: the line lists the active
// producers as kafka-transactions.sh describe-producers prints them;
// then abort --start-offset picks its transaction, and find-hanging
// keeps the open ones and looks up their transactional ids.
func (a *Admin) described(now sim.Time, m *model.DescribeProducersResponse) {
	if len(a.cmds) == 0 || a.cmds[0].step != stDescribe {
		return
	}
	c := &a.cmds[0]
	var b strings.Builder
	fmt.Fprintf(&b, "describe-producers p%d: %v", m.Partition, m.Err)
	if m.Err != model.ErrNone {
		a.note(now, m.Partition, m.Err, b.String())
		a.retry(now, m.Err)
		return
	}
	fmt.Fprintf(&b, ", %d active", len(m.Producers))
	for _, p := range m.Producers {
		fmt.Fprintf(&b, "; pid %d epoch %d coordinator-epoch %d last-seq %d last-timestamp %dms txn-start %d",
			p.PID, p.Epoch, p.CoordinatorEpoch, p.LastSequence, p.LastTimestamp.Duration().Milliseconds(), p.TxnStartOffset)
	}
	a.note(now, m.Partition, m.Err, b.String())
	if c.spec.StartOffset >= 0 {
		for _, p := range m.Producers {
			if p.TxnStartOffset == c.spec.StartOffset {
				c.abort, c.step = append(c.abort[:0], p), stAbort
				return
			}
		}
		a.finish(now, model.ErrNone, fmt.Sprintf("abort p%d: no open transaction starts at offset %d", c.spec.Partition, c.spec.StartOffset))
		return
	}
	c.open = c.open[:0]
	for _, p := range m.Producers {
		if p.TxnStartOffset >= 0 {
			c.open = append(c.open, p)
		}
	}
	if len(c.open) == 0 {
		a.finish(now, model.ErrNone, fmt.Sprintf("find-hanging p%d: no open transaction", c.spec.Partition))
		return
	}
	c.step = stList
}

// listed handles ListTransactions: each open transaction's producer id
// gets its transactional id, if the coordinator lists one.
func (a *Admin) listed(now sim.Time, m *model.ListTransactionsResponse) {
	if len(a.cmds) == 0 || a.cmds[0].step != stList {
		return
	}
	c := &a.cmds[0]
	var b strings.Builder
	fmt.Fprintf(&b, "list-transactions: %v", m.Err)
	for _, t := range m.Txns {
		fmt.Fprintf(&b, "; %s pid %d %v", t.TransactionalID, t.PID, t.State)
	}
	a.note(now, c.spec.Partition, m.Err, b.String())
	if m.Err != model.ErrNone {
		a.retry(now, m.Err)
		return
	}
	c.ids = c.ids[:0]
	found := false
	for _, p := range c.open {
		id := ""
		for _, t := range m.Txns {
			if t.PID == p.PID {
				id, found = t.TransactionalID, true
			}
		}
		c.ids = append(c.ids, id)
	}
	if found {
		c.step = stDescribeTxns
		return
	}
	a.hanging(now, c, nil)
}

// describedTxns handles DescribeTransactions and decides which open
// transactions hang.
func (a *Admin) describedTxns(now sim.Time, m *model.DescribeTransactionsResponse) {
	if len(a.cmds) == 0 || a.cmds[0].step != stDescribeTxns {
		return
	}
	c := &a.cmds[0]
	var b strings.Builder
	b.WriteString("describe-transactions")
	for i, d := range m.Txns {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %s: %v", d.TransactionalID, d.Err)
		if d.Err == model.ErrNone {
			fmt.Fprintf(&b, " pid %d epoch %d %v partitions %s", d.PID, d.Epoch, d.State, parts(d.Partitions))
		}
	}
	a.note(now, c.spec.Partition, model.ErrNone, b.String())
	for _, d := range m.Txns {
		if d.Err != model.ErrNone && d.Err != model.ErrTransactionalIDNotFound {
			a.retry(now, d.Err)
			return
		}
	}
	a.hanging(now, c, m.Txns)
}

// hanging keeps the open transactions no coordinator will end
// (filterHangingTransactions): no transactional id, an id not found, or
// a description without the partition; it reports them as find-hanging
// prints them, and aborts each.
func (a *Admin) hanging(now sim.Time, c *command, descs []model.TxnDescription) {
	c.abort = c.abort[:0]
	for i, p := range c.open {
		hang := c.ids[i] == ""
		if !hang {
			hang = true
			for _, d := range descs {
				if d.TransactionalID == c.ids[i] && d.Err == model.ErrNone && slices.Contains(d.Partitions, c.spec.Partition) {
					hang = false
				}
			}
		}
		if hang {
			c.abort = append(c.abort, p)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "find-hanging p%d: %d hanging", c.spec.Partition, len(c.abort))
	for _, p := range c.abort {
		fmt.Fprintf(&b, "; pid %d epoch %d coordinator-epoch %d start-offset %d", p.PID, p.Epoch, p.CoordinatorEpoch, p.TxnStartOffset)
	}
	if len(c.abort) == 0 {
		a.finish(now, model.ErrNone, b.String())
		return
	}
	a.note(now, c.spec.Partition, model.ErrNone, b.String())
	c.step, c.next = stAbort, 0
}

// aborted handles the abort's WriteTxnMarkers answer
// (AbortTransactionHandler.handleResponse).
func (a *Admin) aborted(now sim.Time, e model.ErrCode) {
	if len(a.cmds) == 0 || a.cmds[0].step != stAbort {
		return
	}
	c := &a.cmds[0]
	p := c.abort[c.next]
	text := fmt.Sprintf("abort p%d pid %d epoch %d coordinator-epoch %d: %v", c.spec.Partition, p.PID, p.Epoch, max(p.CoordinatorEpoch, 0), e)
	switch e {
	case model.ErrNotLeaderOrFollower, model.ErrUnknownTopicOrPartition:
		a.note(now, c.spec.Partition, e, text)
		a.retry(now, e)
		return
	}
	if c.next++; c.next < len(c.abort) {
		a.note(now, c.spec.Partition, e, text)
		return
	}
	a.finish(now, e, text)
}

func parts(ps []int32) string {
	b := []byte{'['}
	for i, p := range ps {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, 'p')
		b = append(b, itoa(int64(p))...)
	}
	return string(append(b, ']'))
}

func itoa(v int64) string { return fmt.Sprint(v) }

// Recycle returns spare, an admin client of a previous run, reset for a
// topic whose partitions' leaders are leaders on brokers brokers, with
// the admin client's default timeouts, or a new one if spare is not an
// admin client.
func Recycle(spare model.Server, leaders []int32, brokers int) *Admin {
	cfg := Config{Leaders: leaders, Brokers: brokers}
	if a, ok := spare.(*Admin); ok {
		a.Reset(cfg)
		return a
	}
	return New(cfg)
}
