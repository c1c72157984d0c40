package net

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/sim"
)

// NodeID names a node on the network: a small index the world assigns.
type NodeID int32

// Direction says whether a message is a request or a response, which picks
// its loss probability.
type Direction uint8

// Directions.
const (
	Request Direction = iota
	Response
)

// String returns "request" or "response".
func (d Direction) String() string {
	if d == Response {
		return "response"
	}
	return "request"
}

// Conn is one connection between a client node and a server node. A
// connection is identified by its endpoints and its generation: every
// reconnect starts a new generation, and a message of an older generation
// never arrives.
type Conn struct {
	Client, Server NodeID
	Gen            uint32
}

// AppendDescription appends "p1>b1#2"-style text using the given names.
func (c Conn) appendTo(b []byte, names []string) []byte {
	b = append(b, names[c.Client]...)
	b = append(b, '>')
	b = append(b, names[c.Server]...)
	b = append(b, '#')
	return strconv.AppendUint(b, uint64(c.Gen), 10)
}

// Token travels with a message from [Network.Send] to [Network.Arrive].
type Token struct {
	Conn Conn
	Dir  Direction
	// Cut is the partition counter of the link at send time.
	Cut uint32
}

// Fate is what happened to a message.
type Fate uint8

// Fates.
const (
	// Delivered: the message arrives.
	Delivered Fate = iota
	// Lost: the message was lost on the wire (a loss draw).
	Lost
	// ConnBroken: the connection broke before the message arrived.
	ConnBroken
	// Partitioned: a network partition cut the message off.
	Partitioned
)

var fateNames = [...]string{"delivered", "lost", "conn-broken", "partitioned"}

// String returns the fate's trace name.
func (f Fate) String() string { return fateNames[f] }

// Sent is the result of [Network.Send].
type Sent struct {
	Fate Fate
	// At is the arrival time, when Fate is Delivered.
	At sim.Time
	// DupAt is the arrival time of a duplicate copy, or -1 (datagram mode).
	DupAt sim.Time
	// Held is the extra delay of a held-back (reordered) message, or 0.
	Held time.Duration
	// Forced is true when the caller forced the loss ([Network.SendLost]).
	Forced bool
	Tok    Token
}

// Notice tells a client at At that its connection Conn broke (a TCP RST).
type Notice struct {
	Conn Conn
	At   sim.Time
}

// connState is a connection's live state.
type connState struct {
	// next counts the pair's connections; gen is the live one's, aux the
	// live auxiliary one's ([Network.ConnectAux]; 0 for none). Each has
	// its own broken flag; the FIFO floor (last) is the pair's.
	next, gen, aux    uint32
	broken, auxBroken bool
	// last holds the latest scheduled arrival per direction, for FIFO.
	last [2]sim.Time
}

// Network is the simulated network. It is a pure state machine over the
// caller's clock: it schedules nothing itself.
type Network struct {
	cfg   Config
	rng   *rand.Rand
	names []string
	// conns is indexed by client*len(names)+server.
	conns []connState
	// lat[a*n+b] is the latency of the directed link a->b.
	lat []Latency
	// cuts[a*n+b] counts partitions begun on the directed link a->b;
	// blocked[a*n+b] tells whether a->b is cut now.
	cuts       []uint32
	blocked    []bool
	reqPPM     uint32
	respPPM    uint32
	dupPPM     uint32
	reorderPPM uint32
	noticePPM  uint32
	// broken lists connections broken by the network (not by their
	// client) since the last [Network.TakeNotices], in break order.
	broken  []Conn
	notices []Notice
	// muted: random loss draws are made but ignored ([Network.MuteLoss]).
	muted bool
	// server marks the server nodes ([Network.SetServers]). A connection
	// between two servers is a server link: its draws come from srvRng,
	// so that server traffic never shifts the clients' stream, it loses
	// messages with srvLossPPM (Config.ServerLoss), and its client always
	// gets a notice of a break.
	server     []bool
	srvRng     *rand.Rand
	srvLossPPM uint32
	// follow[n] is the node whose partitions node n shares
	// ([Network.Follow]); nil when no node follows another.
	follow []NodeID
	// changed: the network's state may have changed since the last
	// [Network.TakeChanged] (set by every method that writes it or
	// draws from its random streams).
	changed bool
}

// TakeChanged reports whether the network's state (its connections,
// partitions, random streams, broken connections, configuration) may
// have changed since the last call, or since [New] or [Renew], and
// clears the mark: a state hash that kept its digest of the network
// walks it again only then.
func (nw *Network) TakeChanged() bool {
	c := nw.changed
	nw.changed = false
	return c
}

// New returns a network over the named nodes. cfg must be valid
// ([Config.Validate] and [Config.CheckNodes]); rng is the network's own
// random stream.
func New(cfg Config, rng *rand.Rand, names []string) *Network { return Renew(nil, cfg, rng, names) }

// Renew is [New] in the memory of old, a network no longer used (nil: new
// memory). The result is the network New returns; old's state is gone.
func Renew(old *Network, cfg Config, rng *rand.Rand, names []string) *Network {
	n := len(names)
	nw := old
	if nw == nil {
		nw = &Network{}
	}
	*nw = Network{
		cfg: cfg, rng: rng, names: names,
		conns:   zeroed(nw.conns, n*n),
		lat:     zeroed(nw.lat, n*n),
		cuts:    zeroed(nw.cuts, n*n),
		blocked: zeroed(nw.blocked, n*n),
		reqPPM:  ppm(cfg.RequestLoss), respPPM: ppm(cfg.ResponseLoss), dupPPM: ppm(cfg.Duplicate),
		reorderPPM: ppm(cfg.Reorder), noticePPM: ppm(cfg.DisconnectNotice),
		broken: nw.broken[:0], notices: nw.notices[:0],
		changed: true,
	}
	for i := range nw.lat {
		nw.lat[i] = cfg.Latency
	}
	for _, l := range cfg.Links {
		a, b := slices.Index(names, l.From), slices.Index(names, l.To)
		if a < 0 || b < 0 {
			panic("net: link " + l.From + ">" + l.To + " names an unknown node")
		}
		nw.lat[a*n+b] = l.Latency
	}
	return nw
}

// zeroed returns a slice of n zero elements, in s's storage when it has
// room.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Follow makes node n share host's partitions: a message between n and
// another node is cut when the link between host and that node is (or
// when its own link is). A coordinator follows the broker that hosts it,
// so that a partition that cuts the broker off cuts the coordinator off
// too. Latencies stay n's own. A message on the wire when n's host
// changes is dropped at arrival if the two hosts' links were cut a
// different number of times.
func (nw *Network) Follow(n, host NodeID) {
	nw.changed = true
	if nw.follow == nil {
		nw.follow = make([]NodeID, len(nw.names))
		for i := range nw.follow {
			nw.follow[i] = NodeID(i)
		}
	}
	nw.follow[n] = host
}

// hostLink is the link whose partitions the link from -> to follows
// ([Network.Follow]), or -1 if it follows none.
func (nw *Network) hostLink(from, to NodeID) int {
	f, t := nw.follow[from], nw.follow[to]
	if f == from && t == to || f == t {
		return -1
	}
	return int(f)*len(nw.names) + int(t)
}

// SetServers marks the server nodes (indexed by node id) and gives the
// links between two of them their own random stream. A connection whose
// both ends are servers is a server link: its latency follows the same
// configuration as any link (Latency, Links), its loss is
// [Config.ServerLoss] (not RequestLoss or ResponseLoss), and its client
// gets a notice of every break the network makes, one latency later,
// unless the notice's direction is cut ([Network.TakeNotices]).
func (nw *Network) SetServers(server []bool, rng *rand.Rand) {
	nw.changed = true
	nw.server = server
	nw.srvRng = rng
	nw.srvLossPPM = ppm(nw.cfg.ServerLoss)
}

// ServerLink reports whether c joins two servers ([Network.SetServers]).
func (nw *Network) ServerLink(c Conn) bool {
	return nw.server != nil && nw.server[c.Client] && nw.server[c.Server]
}

// Config returns the network's configuration.
func (nw *Network) Config() Config { return nw.cfg }

// Mode returns the transport model (Config().Mode, without copying the
// configuration).
func (nw *Network) Mode() Mode { return nw.cfg.Mode }

// Name returns a node's name.
func (nw *Network) Name(id NodeID) string { return nw.names[id] }

func (nw *Network) conn(c, s NodeID) *connState { return &nw.conns[int(c)*len(nw.names)+int(s)] }

// Connect opens a new connection from client to server, abandoning any older
// one: messages of older generations will not arrive.
func (nw *Network) Connect(client, server NodeID) Conn {
	nw.changed = true
	cs := nw.conn(client, server)
	cs.next++
	cs.gen, cs.broken = cs.next, false
	return Conn{Client: client, Server: server, Gen: cs.gen}
}

// ConnectAux is [Network.Connect] for a second client on the client node
// (a consumer beside a producer): its connection lives beside the one
// Connect opened, each abandoning only an older one of its own kind.
// Generations are the pair's, in opening order.
func (nw *Network) ConnectAux(client, server NodeID) Conn {
	nw.changed = true
	cs := nw.conn(client, server)
	cs.next++
	cs.aux, cs.auxBroken = cs.next, false
	return Conn{Client: client, Server: server, Gen: cs.aux}
}

// brokenOf returns the broken flag of generation gen's connection if it
// is live (Connect's or ConnectAux's), else nil.
func (cs *connState) brokenOf(gen uint32) *bool {
	switch {
	case gen == cs.gen:
		return &cs.broken
	case gen == cs.aux && gen != 0:
		return &cs.auxBroken
	}
	return nil
}

// Close closes c, as a client does on a request timeout; what is still on
// the wire is lost.
func (nw *Network) Close(c Conn) {
	if b := nw.conn(c.Client, c.Server).brokenOf(c.Gen); b != nil && !*b {
		*b, nw.changed = true, true
	}
}

// Alive reports whether c is the current, unbroken connection.
func (nw *Network) Alive(c Conn) bool {
	b := nw.conn(c.Client, c.Server).brokenOf(c.Gen)
	return b != nil && !*b
}

// Send puts a message on connection c in direction dir at time now and
// decides its fate. In TCP mode a lost message breaks the connection; the
// message's arrival never precedes an earlier message's on the same
// connection and direction.
func (nw *Network) Send(now sim.Time, c Conn, dir Direction) Sent {
	return nw.send(now, c, dir, false)
}

// MuteLoss makes the random loss draws of [Network.Send] count for
// nothing: they are still drawn, so the stream stays aligned, but no
// message is lost by chance. A run that replays its realized fault plan
// (every random loss written out as a planned drop) mutes the loss.
func (nw *Network) MuteLoss() { nw.muted, nw.changed = true, true }

// SendLost is [Network.Send] for a message the caller (a fault plan) wants
// lost: it is lost like a random loss, without a draw, unless the
// connection is already broken or the link is cut.
func (nw *Network) SendLost(now sim.Time, c Conn, dir Direction) Sent {
	return nw.send(now, c, dir, true)
}

func (nw *Network) send(now sim.Time, c Conn, dir Direction, lose bool) Sent {
	from, to := c.Client, c.Server
	if dir == Response {
		from, to = to, from
	}
	link := int(from)*len(nw.names) + int(to)
	s := Sent{DupAt: -1, Tok: Token{Conn: c, Dir: dir, Cut: nw.cuts[link]}}
	blocked := nw.blocked[link]
	if nw.follow != nil {
		if h := nw.hostLink(from, to); h >= 0 {
			s.Tok.Cut += nw.cuts[h]
			blocked = blocked || nw.blocked[h]
		}
	}
	cs := nw.conn(c.Client, c.Server)
	if b := cs.brokenOf(c.Gen); nw.cfg.Mode == TCP && (b == nil || *b) {
		s.Fate = ConnBroken
		return s
	}
	nw.changed = true // a break, or draws from a random stream
	if blocked {
		s.Fate = Partitioned
		nw.breakConn(c)
		return s
	}
	rng, p := nw.rng, nw.reqPPM
	if dir == Response {
		p = nw.respPPM
	}
	if nw.ServerLink(c) {
		rng, p = nw.srvRng, nw.srvLossPPM
	}
	// The loss draw is made even for a forced loss, and even when muted,
	// so that forcing, muting or removing a loss never shifts the
	// stream's later draws (latencies, notices): a run's random losses
	// replay as planned drops with the same timing.
	hit := sim.Chance(rng, p)
	if lose || hit && !nw.muted {
		s.Fate = Lost
		s.Forced = lose
		nw.breakConn(c)
		return s
	}
	lat := &nw.lat[link]
	at := now.Add(lat.Draw(rng))
	if nw.cfg.Mode == TCP {
		if at < cs.last[dir] {
			at = cs.last[dir]
		}
		cs.last[dir] = at
	} else {
		if sim.Chance(rng, nw.reorderPPM) {
			s.Held = nw.cfg.ReorderDelay
			at = at.Add(s.Held)
		}
		if sim.Chance(rng, nw.dupPPM) {
			s.DupAt = now.Add(lat.Draw(rng))
		}
	}
	s.At = at
	return s
}

// breakConn breaks c in TCP mode, as a loss or partition does, and
// remembers it for [Network.TakeNotices].
func (nw *Network) breakConn(c Conn) {
	if nw.cfg.Mode != TCP {
		return
	}
	if b := nw.conn(c.Client, c.Server).brokenOf(c.Gen); b != nil && !*b {
		*b, nw.changed = true, true
		nw.broken = append(nw.broken, c)
	}
}

// Break breaks c from outside the network, as a crash of its server does:
// what is on it is lost, and the client may get a notice. Unlike
// [Network.Close] it applies in both modes' bookkeeping but only TCP
// connections carry state.
func (nw *Network) Break(c Conn) { nw.breakConn(c) }

// TakeNotices returns, for the connections the network broke since the
// last call, the notices their clients get, and forgets them. Each broken
// connection gets a notice with probability [Config.DisconnectNotice] (a
// server link always: [Network.SetServers]), one server-to-client latency
// after now, unless that direction is cut. The returned slice is valid
// until the next call.
func (nw *Network) TakeNotices(now sim.Time) []Notice {
	nw.notices = nw.notices[:0]
	if len(nw.broken) == 0 {
		return nw.notices
	}
	nw.changed = true // draws, and broken emptied
	for _, c := range nw.broken {
		if nw.Blocked(c.Server, c.Client) {
			continue
		}
		if nw.ServerLink(c) {
			d := nw.lat[int(c.Server)*len(nw.names)+int(c.Client)].Draw(nw.srvRng)
			nw.notices = append(nw.notices, Notice{Conn: c, At: now.Add(d)})
			continue
		}
		if !sim.Chance(nw.rng, nw.noticePPM) {
			continue
		}
		nw.notices = append(nw.notices, Notice{Conn: c, At: now.Add(nw.Delay(c.Server, c.Client))})
	}
	nw.broken = nw.broken[:0]
	return nw.notices
}

// DelayWith draws one delay of the directed link from -> to from rng (a
// stream of the caller's, so that the network's own draws do not shift).
func (nw *Network) DelayWith(rng *rand.Rand, from, to NodeID) time.Duration {
	return nw.lat[int(from)*len(nw.names)+int(to)].Draw(rng)
}

// ServerLossPPM returns the loss rate between servers
// ([Config.ServerLoss]) in parts per million (0 once [Network.Quiet]).
func (nw *Network) ServerLossPPM() uint32 { return nw.srvLossPPM }

// Delay draws one delay of the directed link from -> to.
func (nw *Network) Delay(from, to NodeID) time.Duration {
	nw.changed = true
	return nw.lat[int(from)*len(nw.names)+int(to)].Draw(nw.rng)
}

// Arrive decides, at arrival time, whether a message sent with tok survived:
// in TCP mode its connection must still be the live one, and in either mode
// no partition may have cut its link since it was sent.
func (nw *Network) Arrive(tok Token) Fate {
	c := tok.Conn
	from, to := c.Client, c.Server
	if tok.Dir == Response {
		from, to = to, from
	}
	link := int(from)*len(nw.names) + int(to)
	blocked, cut := nw.blocked[link], nw.cuts[link]
	if nw.follow != nil {
		if h := nw.hostLink(from, to); h >= 0 {
			blocked, cut = blocked || nw.blocked[h], cut+nw.cuts[h]
		}
	}
	if blocked || cut != tok.Cut {
		nw.breakConn(c)
		return Partitioned
	}
	if nw.cfg.Mode == TCP {
		if b := nw.conn(c.Client, c.Server).brokenOf(c.Gen); b == nil || *b {
			return ConnBroken
		}
	}
	return Delivered
}

// Cut starts a one-way partition: messages from a to b are dropped, including
// those already on the wire. Cutting a cut link changes nothing.
func (nw *Network) Cut(a, b NodeID) {
	l := int(a)*len(nw.names) + int(b)
	if !nw.blocked[l] {
		nw.blocked[l] = true
		nw.cuts[l]++
		nw.changed = true
	}
}

// Heal ends a partition from a to b.
func (nw *Network) Heal(a, b NodeID) {
	nw.blocked[int(a)*len(nw.names)+int(b)], nw.changed = false, true
}

// Blocked reports whether the link a->b is cut now, or the link it
// follows ([Network.Follow]).
func (nw *Network) Blocked(a, b NodeID) bool {
	if nw.follow != nil {
		if h := nw.hostLink(a, b); h >= 0 && nw.blocked[h] {
			return true
		}
	}
	return nw.blocked[int(a)*len(nw.names)+int(b)]
}

// AppendConn appends the connection's description, e.g. "p1>b1#2".
func (nw *Network) AppendConn(b []byte, c Conn) []byte { return c.appendTo(b, nw.names) }

// Quiet turns every fault source off and heals every partition:
// no loss, no duplication, no tail delays. The world switches to it when the
// fault plan ends (the run's second, healing phase).
func (nw *Network) Quiet() {
	nw.changed = true
	nw.reqPPM, nw.respPPM, nw.dupPPM, nw.reorderPPM, nw.srvLossPPM = 0, 0, 0, 0, 0
	nw.cfg.Latency.TailProb = 0
	for i := range nw.lat {
		nw.lat[i].TailProb = 0
	}
	for i := range nw.blocked {
		nw.blocked[i] = false
	}
}
