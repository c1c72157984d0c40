package proxy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	stdnet "net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	simnet "github.com/idemsim/idemsim/net"
)

// The fault-injecting TCP proxy. One Proxy stands between one producer
// instance (a client node, p1, p2, ...) and one broker: the instance's
// dialer sends every connection it opens to that broker to the proxy
// instead, and the proxy forwards the Kafka frames in both directions. It
// reads the framing (a 4-byte length, then the request or response), so
// it can count requests like the simulated network counts them on a link,
// lose a request or a response, answer a produce request with an error in
// the broker's place, delay or hold a direction, hold one request of a
// given type late (the plan action late, late.go), and refuse connections
// during a partition.
//
// TCP semantics follow the simulated network's tcp mode (docs/plans.md):
// a lost message breaks its connection, and everything after it on that
// connection is lost too. The client learns of it at once (the proxy
// closes both sides, as an RST would tell it) with probability Notice, or
// else only when its own request timeout fires (the proxy then swallows
// the connection's traffic until the client closes it).
//
// Only the messages idemsim models take part in the numbering and the
// random losses: Produce, and on the coordinator link InitProducerId,
// AddPartitionsToTxn and EndTxn. ApiVersions, Metadata, FindCoordinator
// and the rest pass untouched, because the simulator has no such
// messages; they still see pauses, cuts and refused connections.

// Config configures a Proxy.
type Config struct {
	// Client and Server are the plan's node names of the two ends, e.g.
	// "p1" and "b1". Coordinator is the plan's name for the coordinator
	// link ("c1"): coordinator requests are numbered on it.
	Client, Server, Coordinator string
	// Upstream is the broker's address.
	Upstream string
	// RequestLoss and ResponseLoss are net.request_loss and
	// net.response_loss.
	RequestLoss, ResponseLoss float64
	// Notice is net.disconnect_notice.
	Notice float64
	// TransientError is broker.transient_error: the probability that the
	// proxy answers a produce request's batches NOT_ENOUGH_REPLICAS in the
	// broker's place (nothing is appended).
	TransientError float64
	// Latency is net.latency: each message is delayed by a draw,
	// multiplied by LatencyScale (0: no delay), and delivered in order.
	Latency      simnet.Latency
	LatencyScale float64
	// Rewrite, if set, maps broker addresses (host:port) to the
	// addresses the client must use instead (its proxies): the proxy
	// rewrites the brokers that Metadata and FindCoordinator responses
	// advertise. It is for -bootstrap, where a user's brokers advertise
	// their own addresses; set it with SetRewrite once every proxy
	// listens.
	Rewrite map[string]string
	// Seed seeds the proxy's random draws (losses, errors, latencies).
	// The draws are reproducible; the real time around them is not.
	Seed uint64
}

// Stats are what a proxy saw and did.
type Stats struct {
	// Requests and Responses count modelled messages forwarded or lost.
	Requests, Responses int64
	// RequestsLost and ResponsesLost count modelled messages lost (drawn
	// or by a plan's drop).
	RequestsLost, ResponsesLost int64
	// Rejected counts produce requests the proxy answered with an error.
	Rejected int64
	// Refused counts connections refused during a partition.
	Refused int64
	// Late counts requests held late (ArmLate).
	Late int64
	// Fenced counts produce batches, and InitProducerId,
	// AddPartitionsToTxn and EndTxn requests, answered
	// INVALID_PRODUCER_EPOCH or PRODUCER_FENCED: what the broker or the
	// coordinator refused for a stale epoch, whether or not the client
	// got the answer (idemsim's fenced counter, scenarios/world/stats.go).
	Fenced int64
	// Rewritten counts Metadata and FindCoordinator responses whose
	// advertised brokers were rewritten (-bootstrap).
	Rewritten int64
	// Doomed counts modelled requests whose response is to be lost
	// (drawn or by a plan's drop), and DoomedInFlight sums, over them,
	// the modelled requests sent earlier on the same connection whose
	// answers had not yet been written to the client when the doomed
	// one arrived: the requests in flight ahead of it.
	Doomed, DoomedInFlight int64
	// LostWith sums, over lost responses, the answers to earlier
	// modelled requests still waiting in the proxy to be written to the
	// client when the lost one broke the connection: answers lost with
	// it, whose requests the broker had handled.
	LostWith int64
	// Errors counts error codes, by Kafka name, in the modelled responses
	// the client received (forged ones included).
	Errors map[string]int64
	// GroupErrors counts error codes in the group and offset answers the
	// client received, which are not modelled messages (no loss, no
	// numbering), by request and Kafka name: "TxnOffsetCommit
	// ILLEGAL_GENERATION". The requests are JoinGroup, SyncGroup,
	// Heartbeat, OffsetFetch, AddOffsetsToTxn and TxnOffsetCommit.
	GroupErrors map[string]int64
}

// apiModelled reports whether a request key takes part in the numbering
// and the random losses, and on which link: produce on the broker link,
// the transaction and producer-id requests on the coordinator link.
func apiModelled(key int16) (modelled, coordinator bool) {
	switch key {
	case 0:
		return true, false
	case 22, 24, 26:
		return true, true
	}
	return false, false
}

// Proxy is a fault-injecting TCP proxy in front of one broker for one
// client instance. Its methods are safe for concurrent use.
type Proxy struct {
	cfg Config
	ln  stdnet.Listener

	mu     sync.Mutex
	rng    *rand.Rand
	conns  map[*pconn]struct{}
	closed bool
	// nProduce and nCoord number the modelled requests on the broker
	// and the coordinator link, from 1 (reconnects included).
	nProduce, nCoord int64
	// drops are armed plan drops: link and direction to request numbers.
	drops map[dropKey]bool
	// rejects are armed plan rejects by produce request number.
	rejects map[int64]rejectRule
	// nKey numbers every request by API key (reconnects included), and
	// lates are armed late rules: a key (-1: any modelled request, by
	// its link's number) and a number to the extra delay.
	nKey  map[int16]int64
	lates map[lateKey]time.Duration
	// cut[dir] drops every message in that direction; refuse refuses
	// new connections (a partition both ways).
	cut    [2]bool
	refuse bool
	// holdUntil[dir] holds messages in that direction (a pause);
	// released is closed (and replaced) when Release ends the holds,
	// which wakes the writers waiting out one.
	holdUntil [2]time.Time
	released  chan struct{}
	stats     Stats
	wg        sync.WaitGroup
}

type dropKey struct {
	coord bool
	dir   simnet.Direction
	n     int64
}

type lateKey struct {
	key int16
	n   int64
}

type rejectRule struct {
	code int16
	part int32
}

// New listens on a loopback port and forwards to cfg.Upstream.
func New(cfg Config) (*Proxy, error) {
	ln, err := stdnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{cfg: cfg, ln: ln, released: make(chan struct{}), rng: rand.New(rand.NewPCG(cfg.Seed, 0x70726f7879)),
		conns: make(map[*pconn]struct{}), drops: make(map[dropKey]bool), rejects: make(map[int64]rejectRule),
		nKey: make(map[int16]int64), lates: make(map[lateKey]time.Duration),
		stats: Stats{Errors: make(map[string]int64)}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's loopback address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Stats returns a copy of the proxy's counters.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Errors = make(map[string]int64, len(p.stats.Errors))
	for k, v := range p.stats.Errors {
		s.Errors[k] = v
	}
	s.GroupErrors = maps.Clone(p.stats.GroupErrors)
	return s
}

// Close stops the proxy: the listener and every connection close, and
// Close returns once every goroutine of the proxy has ended.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	conns := make([]*pconn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	p.ln.Close()
	for _, c := range conns {
		c.kill()
	}
	p.wg.Wait()
}

// DropAll breaks every open connection at once, with a notice (the
// client sees them close): what a crash of either end does to them.
func (p *Proxy) DropAll() {
	p.mu.Lock()
	conns := make([]*pconn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.kill()
	}
}

// SetRewrite sets the advertised-address rewrite ([Config.Rewrite]).
func (p *Proxy) SetRewrite(m map[string]string) {
	p.mu.Lock()
	p.cfg.Rewrite = m
	p.mu.Unlock()
}

// rewrite returns response b to a Metadata or FindCoordinator request
// with every advertised broker address replaced by its proxy's, or b
// when there is nothing to rewrite. p.mu is held.
func (p *Proxy) rewrite(s *slot, b []byte) []byte {
	if len(p.cfg.Rewrite) == 0 || s.key != 3 && s.key != 10 {
		return b
	}
	i, err := responseBody(b, s.key, s.ver)
	if err != nil {
		return b
	}
	swap := func(host *string, port *int32) bool {
		to, ok := p.cfg.Rewrite[stdnet.JoinHostPort(*host, strconv.Itoa(int(*port)))]
		if !ok {
			return false
		}
		h, ps, err := stdnet.SplitHostPort(to)
		if err != nil {
			return false
		}
		n, err := strconv.Atoi(ps)
		if err != nil {
			return false
		}
		*host, *port = h, int32(n)
		return true
	}
	var resp kmsg.Response
	changed := false
	switch s.key {
	case 3:
		r := kmsg.NewPtrMetadataResponse()
		r.Version = s.ver
		if r.ReadFrom(b[i:]) != nil {
			return b
		}
		for k := range r.Brokers {
			changed = swap(&r.Brokers[k].Host, &r.Brokers[k].Port) || changed
		}
		resp = r
	case 10:
		r := kmsg.NewPtrFindCoordinatorResponse()
		r.Version = s.ver
		if r.ReadFrom(b[i:]) != nil {
			return b
		}
		changed = swap(&r.Host, &r.Port) || changed
		for k := range r.Coordinators {
			changed = swap(&r.Coordinators[k].Host, &r.Coordinators[k].Port) || changed
		}
		resp = r
	}
	if !changed {
		return b
	}
	p.stats.Rewritten++
	out := make([]byte, 8, len(b)+64)
	copy(out[4:8], b[4:8]) // correlation id
	if resp.IsFlexible() {
		out = append(out, 0)
	}
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// ArmDrop arms a plan drop: the n-th modelled request on the broker link
// (coord false) or the coordinator link, or its response, is lost.
func (p *Proxy) ArmDrop(coord bool, dir simnet.Direction, n int64) {
	p.mu.Lock()
	p.drops[dropKey{coord, dir, n}] = true
	p.mu.Unlock()
}

// ArmReject arms a plan reject: the proxy answers the n-th produce
// request's batches (only partition part's when part >= 0) with code.
func (p *Proxy) ArmReject(n int64, code int16, part int32) {
	p.mu.Lock()
	p.rejects[n] = rejectRule{code, part}
	p.mu.Unlock()
}

// ArmLate arms a plan late: the n-th request with API key key (key -1:
// the n-th modelled request on the broker link, or on the coordinator
// link with coord) reaches the broker d later than the network would
// deliver it. The requests behind it on its connection wait behind it
// (a connection never reorders). The broker reads and handles it even if
// the client closed the connection meanwhile, or a cut came since: the
// proxy keeps the broker side open until it is delivered, and drops what
// the broker answers to a client that is gone (faults.Late: a TCP
// segment retransmitted after a blip, read by a broker socket that never
// saw the client's close).
func (p *Proxy) ArmLate(key int16, coord bool, n int64, d time.Duration) {
	p.mu.Lock()
	if key < 0 && coord {
		key = -2
	}
	p.lates[lateKey{key, n}] = d
	p.mu.Unlock()
}

// Cut drops every message in direction dir (Request: client to broker)
// until Heal; a cut both ways also refuses new connections.
func (p *Proxy) Cut(dir simnet.Direction) {
	p.mu.Lock()
	p.cut[dir] = true
	p.refuse = p.cut[0] && p.cut[1]
	p.mu.Unlock()
}

// Heal ends a cut in direction dir.
func (p *Proxy) Heal(dir simnet.Direction) {
	p.mu.Lock()
	p.cut[dir] = false
	p.refuse = false
	p.mu.Unlock()
}

// Hold holds the messages in direction dir until t (a pause): they are
// delivered, in order, after it.
func (p *Proxy) Hold(dir simnet.Direction, t time.Time) {
	p.mu.Lock()
	if t.After(p.holdUntil[dir]) {
		p.holdUntil[dir] = t
	}
	p.mu.Unlock()
}

// Release ends every hold at once (the end of the fault phase, or of
// the run): what a hold kept goes through now, not at the hold's end.
func (p *Proxy) Release() {
	p.mu.Lock()
	p.holdUntil = [2]time.Time{}
	close(p.released)
	p.released = make(chan struct{})
	p.mu.Unlock()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.closed || p.refuse {
			if p.refuse {
				p.stats.Refused++
			}
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.mu.Unlock()
		u, err := stdnet.DialTimeout("tcp", p.cfg.Upstream, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		pc := &pconn{p: p, c: c, u: u, done: make(chan struct{})}
		pc.out[simnet.Request] = make(chan frame, 256)
		pc.out[simnet.Response] = make(chan frame, 256)
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			u.Close()
			continue
		}
		p.conns[pc] = struct{}{}
		p.wg.Add(4)
		p.mu.Unlock()
		go pc.readRequests()
		go pc.readResponses()
		go pc.write(simnet.Request, u)
		go pc.write(simnet.Response, c)
	}
}

// frame is one length-prefixed message and when it may be delivered.
type frame struct {
	b  []byte
	at time.Time
	// late: a held request (ArmLate), delivered through cuts and breaks.
	late bool
	// modelled: the answer to a modelled request (counted in
	// pconn.waiting until it is written or swallowed).
	modelled bool
}

// slot is a request whose response the client waits for, in order.
type slot struct {
	corr    int32
	key     int16
	ver     int16
	n       int64 // number on its link, 0 when not modelled
	coord   bool
	forged  []byte // the proxy's own answer, when it answered
	readyAt time.Time
	// loseResp: the response is lost (drawn when the request went on).
	loseResp bool
	pending  bool // the broker's answer is still to come
}

// pconn is one proxied connection: client side c, broker side u.
type pconn struct {
	p    *Proxy
	c, u stdnet.Conn
	out  [2]chan frame
	// Guarded by p.mu:
	order []*slot
	// broken: a message was lost; the rest of the connection is
	// swallowed (no notice) or it is closed (notice).
	broken bool
	// doomed: a response on the way is to be lost; requests after it
	// are lost with the connection.
	doomed bool
	last   [2]time.Time
	// waiting counts the answers to modelled requests queued for the
	// client and not yet written or swallowed (Stats.LostWith).
	waiting int64
	// lateUntil is when the last held request goes to the broker
	// (ArmLate); gone: the client closed its side, and only held requests
	// still go on, while the broker's answers are dropped.
	lateUntil time.Time
	gone      bool
	once      sync.Once
	done      chan struct{}
}

// kill closes both sides at once.
func (pc *pconn) kill() {
	pc.once.Do(func() {
		close(pc.done)
		pc.c.Close()
		pc.u.Close()
		pc.p.mu.Lock()
		delete(pc.p.conns, pc)
		pc.p.mu.Unlock()
	})
}

// breakLocked breaks the connection after a lost message: closed at
// once with probability Notice, else swallowed until the client gives up
// on it. p.mu is held.
func (pc *pconn) breakLocked() {
	if pc.broken {
		return
	}
	pc.broken = true
	if pc.p.cfg.Notice > 0 && pc.p.rng.Float64() < pc.p.cfg.Notice {
		go pc.kill()
	}
}

// readFrame reads one length-prefixed frame, prefix included.
func readFrame(r *bufio.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > 256<<20 {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	b := make([]byte, 4+n)
	copy(b, hdr[:])
	if _, err := io.ReadFull(r, b[4:]); err != nil {
		return nil, err
	}
	return b, nil
}

// deliverAt returns when a message in direction dir read now (or
// ready at from, if later) may be delivered: after its drawn latency and
// after the previous one (FIFO). p.mu is held.
func (pc *pconn) deliverAt(dir simnet.Direction, from time.Time) time.Time {
	at := time.Now()
	if from.After(at) {
		at = from
	}
	if sc := pc.p.cfg.LatencyScale; sc > 0 {
		at = at.Add(time.Duration(float64(pc.p.cfg.Latency.Draw(pc.p.rng)) * sc))
	}
	if at.Before(pc.last[dir]) {
		at = pc.last[dir]
	}
	pc.last[dir] = at
	return at
}

// send queues a frame for delivery in direction dir; p.mu is held.
func (pc *pconn) send(dir simnet.Direction, b []byte) { pc.sendFrom(dir, b, time.Time{}) }

// sendFrom queues a frame that is ready at from (or now, if later).
func (pc *pconn) sendFrom(dir simnet.Direction, b []byte, from time.Time) {
	pc.queue(dir, frame{b: b, at: pc.deliverAt(dir, from)})
}

// queue queues frame f for its writer; p.mu is held.
func (pc *pconn) queue(dir simnet.Direction, f frame) {
	select {
	case pc.out[dir] <- f:
	default:
		// The writer is far behind (more than the channel holds):
		// Kafka bounds what is in flight, so this is a stuck client;
		// break the connection rather than block under the lock.
		pc.breakLocked()
		go pc.kill()
	}
}

// write delivers frames in order at their times, honouring holds and
// cuts.
func (pc *pconn) write(dir simnet.Direction, w io.Writer) {
	defer pc.p.wg.Done()
	defer pc.kill()
	for {
		var f frame
		select {
		case <-pc.done:
			return
		case f = <-pc.out[dir]:
		}
		for {
			pc.p.mu.Lock()
			hold, released := pc.p.holdUntil[dir], pc.p.released
			pc.p.mu.Unlock()
			at := f.at
			if hold.After(at) {
				at = hold
			}
			d := time.Until(at)
			if d <= 0 {
				break
			}
			t := time.NewTimer(d)
			select {
			case <-pc.done:
				t.Stop()
				return
			case <-t.C:
			case <-released:
				t.Stop() // the hold ended early: wait for f.at alone
			}
		}
		pc.p.mu.Lock()
		cut := pc.p.cut[dir] && !f.late
		if cut {
			pc.breakLocked()
		}
		broken := pc.broken && !f.late || pc.gone && dir == simnet.Response
		if f.modelled {
			pc.waiting--
		}
		pc.p.mu.Unlock()
		if broken {
			continue // swallowed
		}
		if _, err := w.Write(f.b); err != nil {
			return
		}
	}
}

// requestHeader parses a request frame's header: key, version,
// correlation id, and where the body starts.
func requestHeader(b []byte) (key, ver int16, corr int32, body int, err error) {
	if len(b) < 4+8+2 {
		return 0, 0, 0, 0, errors.New("short request")
	}
	key = int16(binary.BigEndian.Uint16(b[4:]))
	ver = int16(binary.BigEndian.Uint16(b[6:]))
	corr = int32(binary.BigEndian.Uint32(b[8:]))
	i := 12
	n := int16(binary.BigEndian.Uint16(b[i:]))
	i += 2
	if n > 0 {
		i += int(n)
	}
	req := kmsg.RequestForKey(key)
	if req != nil {
		req.SetVersion(ver)
		if req.IsFlexible() { // request header v2
			i, err = skipTags(b, i)
		}
	}
	if i > len(b) {
		return 0, 0, 0, 0, errors.New("short request header")
	}
	return key, ver, corr, i, err
}

// skipTags skips a tagged-field section at b[i:].
func skipTags(b []byte, i int) (int, error) {
	n, k := binary.Uvarint(b[i:])
	if k <= 0 {
		return 0, errors.New("bad tagged fields")
	}
	i += k
	for range n {
		_, k = binary.Uvarint(b[i:])
		if k <= 0 {
			return 0, errors.New("bad tag")
		}
		i += k
		sz, k := binary.Uvarint(b[i:])
		if k <= 0 {
			return 0, errors.New("bad tag size")
		}
		i += k + int(sz)
	}
	return i, nil
}

// responseBody returns where a response frame's body starts for a
// request key and version (after the correlation id and, for flexible
// versions but ApiVersions, the header's tagged fields).
func responseBody(b []byte, key, ver int16) (int, error) {
	i := 8
	resp := kmsg.ResponseForKey(key)
	if resp != nil && key != 18 {
		resp.SetVersion(ver)
		if resp.IsFlexible() {
			return skipTags(b, i)
		}
	}
	return i, nil
}

func (pc *pconn) readRequests() {
	defer pc.p.wg.Done()
	r := bufio.NewReader(pc.c)
	for {
		b, err := readFrame(r)
		if err != nil {
			pc.clientGone()
			return
		}
		key, ver, corr, body, err := requestHeader(b)
		if err != nil {
			pc.kill()
			return
		}
		pc.request(b, key, ver, corr, body)
	}
}

// lateGrace is how long the broker side of a connection whose client is
// gone stays open after its last held request went on: time for the
// broker to read and handle it.
const lateGrace = 2 * time.Second

// clientGone ends the connection when its client closed it, unless a
// held request is still to reach the broker: then only the client side
// closes now, and the broker side once the request went on (lateGrace
// after it).
func (pc *pconn) clientGone() {
	p := pc.p
	p.mu.Lock()
	until := pc.lateUntil
	pending := until.After(time.Now())
	if pending {
		pc.gone = true
	}
	p.mu.Unlock()
	if !pending {
		pc.kill()
		return
	}
	pc.c.Close()
	time.AfterFunc(time.Until(until)+lateGrace, pc.kill)
}

// request handles one request frame from the client.
func (pc *pconn) request(b []byte, key, ver int16, corr int32, body int) {
	p := pc.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if pc.broken || pc.doomed {
		// Lost with the connection: a break is under way.
		return
	}
	modelled, coord := apiModelled(key)
	s := &slot{corr: corr, key: key, ver: ver, coord: coord, pending: true}
	p.nKey[key]++
	late, isLate := p.lates[lateKey{key, p.nKey[key]}]
	if isLate {
		delete(p.lates, lateKey{key, p.nKey[key]})
	}
	expectResponse := true
	var preq *kmsg.ProduceRequest
	if key == 0 {
		preq = kmsg.NewPtrProduceRequest()
		preq.Version = ver
		if err := preq.ReadFrom(b[body:]); err != nil {
			preq = nil
		} else if preq.Acks == 0 {
			expectResponse = false
		}
	}
	if modelled {
		if coord {
			p.nCoord++
			s.n = p.nCoord
		} else {
			p.nProduce++
			s.n = p.nProduce
		}
		p.stats.Requests++
		anyKey := lateKey{-1, s.n}
		if coord {
			anyKey.key = -2
		}
		if d, ok := p.lates[anyKey]; ok && !isLate {
			delete(p.lates, anyKey)
			late, isLate = d, true
		}
		lost := p.drops[dropKey{coord, simnet.Request, s.n}] || p.cfg.RequestLoss > 0 && p.rng.Float64() < p.cfg.RequestLoss
		if lost {
			delete(p.drops, dropKey{coord, simnet.Request, s.n})
			p.stats.RequestsLost++
			pc.breakLocked()
			return
		}
		if expectResponse {
			// The response's fate is drawn now, as the request goes to
			// the broker: in the simulator a lost response breaks the
			// connection when the broker sends it, so every later
			// request on the connection is lost with it. Holding them
			// back here is the only way to keep the broker from
			// appending them before the response comes back.
			k := dropKey{coord, simnet.Response, s.n}
			if p.drops[k] || p.cfg.ResponseLoss > 0 && p.rng.Float64() < p.cfg.ResponseLoss {
				delete(p.drops, k)
				s.loseResp = true
				pc.doomed = true
				p.stats.Doomed++
				p.stats.DoomedInFlight += pc.waiting
				for _, o := range pc.order {
					if o.n > 0 {
						p.stats.DoomedInFlight++
					}
				}
			}
		}
		if key == 0 && preq != nil && expectResponse {
			rule, armed := p.rejects[s.n]
			if !armed && p.cfg.TransientError > 0 && p.rng.Float64() < p.cfg.TransientError {
				rule, armed = rejectRule{code: kerr.NotEnoughReplicas.Code, part: -1}, true
			}
			if armed {
				delete(p.rejects, s.n)
				p.stats.Rejected++
				// The answer leaves the "broker" when the request would
				// have reached it: one request latency (and the request
				// direction's FIFO order) later.
				s.readyAt = pc.deliverAt(simnet.Request, time.Time{})
				s.forged, s.pending = rejectProduce(preq, corr, rule), false
				pc.order = append(pc.order, s)
				pc.flushLocked()
				return
			}
		}
	}
	if expectResponse {
		pc.order = append(pc.order, s)
	}
	if isLate {
		p.stats.Late++
		f := frame{b: b, at: pc.deliverAt(simnet.Request, time.Time{}).Add(late), late: true}
		// The requests behind it wait behind it.
		pc.last[simnet.Request] = f.at
		pc.lateUntil = f.at
		pc.queue(simnet.Request, f)
		return
	}
	pc.send(simnet.Request, b)
}

// rejectProduce builds the proxy's answer to a rejected produce request:
// every batch answered with rule.code, nothing forwarded. A plan reject
// naming one partition of a request with several batches rejects them
// all (a documented difference, docs/validate.md): splitting a request
// would change what the broker sees.
func rejectProduce(req *kmsg.ProduceRequest, corr int32, rule rejectRule) []byte {
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = req.Version
	for _, t := range req.Topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, tp := range t.Partitions {
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition = tp.Partition
			rp.ErrorCode = rule.code
			rp.BaseOffset = -1
			rp.LogAppendTime = -1
			rp.LogStartOffset = -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	out := make([]byte, 8, 64)
	binary.BigEndian.PutUint32(out[4:], uint32(corr))
	if resp.IsFlexible() {
		out = append(out, 0)
	}
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// flushLocked delivers the proxy's own answers that reached the head of
// the response order. p.mu is held.
func (pc *pconn) flushLocked() {
	for len(pc.order) > 0 && !pc.order[0].pending {
		s := pc.order[0]
		pc.order = pc.order[1:]
		pc.deliverLocked(s, s.forged, s.readyAt)
		if pc.broken {
			return
		}
	}
}

// deliverLocked decides the fate of the response b to s and sends it on.
func (pc *pconn) deliverLocked(s *slot, b []byte, from time.Time) {
	p := pc.p
	if s.n > 0 {
		p.stats.Responses++
		if s.loseResp {
			p.stats.ResponsesLost++
			p.stats.LostWith += pc.waiting
			pc.breakLocked()
			return
		}
		p.countErrors(s, b, !pc.gone)
	} else if !pc.gone && groupAnswer(s.key) {
		p.countGroupErrors(s, b)
	}
	if s.n > 0 {
		pc.waiting++
		pc.queue(simnet.Response, frame{b: b, at: pc.deliverAt(simnet.Response, from), modelled: true})
		return
	}
	pc.sendFrom(simnet.Response, b, from)
}

// countErrors counts the error codes of a modelled response, in Errors
// only if the client receives it (received), and its fencing in Fenced
// either way; p.mu is held.
func (p *Proxy) countErrors(s *slot, b []byte, received bool) {
	i, err := responseBody(b, s.key, s.ver)
	if err != nil {
		return
	}
	add := func(code int16) {
		if code == kerr.InvalidProducerEpoch.Code || code == kerr.ProducerFenced.Code {
			p.stats.Fenced++
		}
		if code != 0 && received {
			p.stats.Errors[errName(code)]++
		}
	}
	switch s.key {
	case 0:
		r := kmsg.NewPtrProduceResponse()
		r.Version = s.ver
		if r.ReadFrom(b[i:]) == nil {
			for _, t := range r.Topics {
				for _, tp := range t.Partitions {
					add(tp.ErrorCode)
				}
			}
		}
	case 22:
		r := kmsg.NewPtrInitProducerIDResponse()
		r.Version = s.ver
		if r.ReadFrom(b[i:]) == nil {
			add(r.ErrorCode)
		}
	case 26:
		r := kmsg.NewPtrEndTxnResponse()
		r.Version = s.ver
		if r.ReadFrom(b[i:]) == nil {
			add(r.ErrorCode)
		}
	case 24:
		r := kmsg.NewPtrAddPartitionsToTxnResponse()
		r.Version = s.ver
		if r.ReadFrom(b[i:]) == nil {
			// One refused request fences once, however many partitions
			// it names (idemsim counts the coordinator's answer).
			fenced := p.stats.Fenced
			add(r.ErrorCode)
			for _, t := range r.Topics {
				for _, tp := range t.Partitions {
					add(tp.ErrorCode)
				}
			}
			p.stats.Fenced = min(p.stats.Fenced, fenced+1)
		}
	}
}

// groupAPIs name the group and offset requests whose answers' errors
// GroupErrors counts, by API key.
var groupAPIs = map[int16]string{9: "OffsetFetch", 11: "JoinGroup", 12: "Heartbeat", 14: "SyncGroup", 25: "AddOffsetsToTxn", 28: "TxnOffsetCommit"}

// groupAnswer reports whether key is a group or offset request whose
// answers' errors GroupErrors counts.
func groupAnswer(key int16) bool {
	_, ok := groupAPIs[key]
	return ok
}

// countGroupErrors counts the error codes of a group or offset answer in
// GroupErrors; p.mu is held.
func (p *Proxy) countGroupErrors(s *slot, b []byte) {
	i, err := responseBody(b, s.key, s.ver)
	if err != nil {
		return
	}
	if p.stats.GroupErrors == nil {
		p.stats.GroupErrors = map[string]int64{}
	}
	api := groupAPIs[s.key]
	add := func(code int16) {
		if code != 0 {
			p.stats.GroupErrors[api+" "+errName(code)]++
		}
	}
	body := b[i:]
	switch s.key {
	case 9:
		r := kmsg.NewPtrOffsetFetchResponse()
		r.Version = s.ver
		if r.ReadFrom(body) == nil {
			add(r.ErrorCode)
			for _, t := range r.Topics {
				for _, tp := range t.Partitions {
					add(tp.ErrorCode)
				}
			}
			for _, g := range r.Groups {
				add(g.ErrorCode)
				for _, t := range g.Topics {
					for _, tp := range t.Partitions {
						add(tp.ErrorCode)
					}
				}
			}
		}
	case 11:
		r := kmsg.NewPtrJoinGroupResponse()
		r.Version = s.ver
		if r.ReadFrom(body) == nil {
			add(r.ErrorCode)
		}
	case 12:
		r := kmsg.NewPtrHeartbeatResponse()
		r.Version = s.ver
		if r.ReadFrom(body) == nil {
			add(r.ErrorCode)
		}
	case 14:
		r := kmsg.NewPtrSyncGroupResponse()
		r.Version = s.ver
		if r.ReadFrom(body) == nil {
			add(r.ErrorCode)
		}
	case 25:
		r := kmsg.NewPtrAddOffsetsToTxnResponse()
		r.Version = s.ver
		if r.ReadFrom(body) == nil {
			add(r.ErrorCode)
		}
	case 28:
		r := kmsg.NewPtrTxnOffsetCommitResponse()
		r.Version = s.ver
		if r.ReadFrom(body) == nil {
			for _, t := range r.Topics {
				for _, tp := range t.Partitions {
					add(tp.ErrorCode)
				}
			}
		}
	}
}

// errName is the Kafka name of an error code, as idemsim prints it.
func errName(code int16) string {
	if e, ok := kerr.ErrorForCode(code).(*kerr.Error); ok {
		if e == kerr.NotLeaderForPartition {
			return "NOT_LEADER_OR_FOLLOWER"
		}
		return e.Message
	}
	return fmt.Sprintf("ERROR_%d", code)
}

func (pc *pconn) readResponses() {
	defer pc.p.wg.Done()
	defer pc.kill()
	r := bufio.NewReader(pc.u)
	for {
		b, err := readFrame(r)
		if err != nil {
			return
		}
		if len(b) < 8 {
			return
		}
		corr := int32(binary.BigEndian.Uint32(b[4:]))
		pc.response(b, corr)
	}
}

// response handles one response frame from the broker.
func (pc *pconn) response(b []byte, corr int32) {
	p := pc.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if pc.broken {
		return
	}
	pc.flushLocked()
	if pc.broken {
		return
	}
	if len(pc.order) == 0 || pc.order[0].corr != corr {
		// A response the proxy did not expect (it keeps the order of
		// every request that has one): pass it on untouched.
		pc.send(simnet.Response, b)
		return
	}
	s := pc.order[0]
	pc.order = pc.order[1:]
	b = p.rewrite(s, b)
	pc.deliverLocked(s, b, time.Time{})
	if !pc.broken {
		pc.flushLocked()
	}
}
