package client

import (
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Nagle's algorithm on a broker connection (clientPolicy.nagle: the
// librdkafka policy, whose release leaves socket.nagle.disable false).
// A socket without TCP_NODELAY sends a small write at once only when
// nothing it sent is unacknowledged; what is written meanwhile waits in
// the socket and goes out together when the acknowledgement comes
// (RFC 896; Linux tcp_nagle_test). A broker's TCP stack in its
// request-answer rhythm delays its acknowledgements to carry them on its
// next answer (Linux's delayed ACK, "pingpong" mode), so the requests a
// client writes back to back leave in two steps: the first alone, the
// others when the first one's answer comes back. The model:
//   - a request written while the connection's last segment is
//     unacknowledged is held (dconn.held); it is in flight for the
//     client (its in-flight slot, its request timeout) but not on the
//     wire;
//   - the segment is acknowledged by the answer to any request of it or
//     written after it (the broker answers in order, at once; Receive),
//     or delayedAck after it was written if no answer came;
//   - then the held requests go out together, as the next segment.
//
// Not modelled: the segment size (a full segment goes without waiting:
// on loopback, where validate's real side runs, a segment holds 64 KiB,
// more than any burst of idemsim's requests), the acknowledgement's own
// trip back, and a broker's quick acknowledgements at a connection's
// start (Linux's quickack mode).
const delayedAck = 40 * time.Millisecond // Linux TCP_DELACK_MIN (HZ/25)

// nagleWrite puts request m (correlation id corr) on connection c, or
// holds it in the socket behind an unacknowledged segment. Without Nagle
// the callers put it on the wire themselves.
func (p *Producer) nagleWrite(now sim.Time, c *dconn, corr int64, m model.Message) {
	if c.segOut && now < c.segAt.Add(delayedAck) {
		if len(c.held) == 0 {
			c.heldCorr = corr
		}
		c.held = append(c.held, m)
		return
	}
	p.out = append(p.out, model.Out{Kind: model.OutSend, Dest: c.dest, Msg: m})
	c.segOut, c.segAt, c.segCorr = true, now, corr
}

// nagleTimers acknowledges the segments whose delayed acknowledgement is
// due.
func (p *Producer) nagleTimers(now sim.Time) {
	for _, c := range p.conns {
		if c.segOut && now >= c.segAt.Add(delayedAck) {
			p.nagleAck(now, c)
		}
	}
}

// nagleAck acknowledges c's outstanding segment: the held requests go out
// together as the next one.
func (p *Producer) nagleAck(now sim.Time, c *dconn) {
	c.segOut = false
	if len(c.held) == 0 {
		return
	}
	for _, m := range c.held {
		p.out = append(p.out, model.Out{Kind: model.OutSend, Dest: c.dest, Msg: m})
	}
	c.segOut, c.segAt, c.segCorr = true, now, c.heldCorr
	clear(c.held)
	c.held = c.held[:0]
}

// nagleReset forgets c's segment and held requests when it breaks: the
// held requests fail with the connection's other requests.
func (p *Producer) nagleReset(c *dconn) {
	c.segOut = false
	clear(c.held)
	c.held = c.held[:0]
}
