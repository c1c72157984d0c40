package net

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Mode is the transport model.
type Mode uint8

const (
	// TCP: per-connection FIFO; a loss breaks the connection.
	TCP Mode = iota
	// Datagram: independent loss, duplication, delay and reordering.
	Datagram
)

// String returns "tcp" or "datagram".
func (m Mode) String() string {
	if m == Datagram {
		return "datagram"
	}
	return "tcp"
}

// ParseMode parses "tcp" or "datagram".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "tcp":
		return TCP, nil
	case "datagram":
		return Datagram, nil
	}
	return TCP, fmt.Errorf("unknown transport mode %q (allowed: tcp, datagram)", s)
}

// Config describes the network. The zero value is a perfect TCP network
// with zero latency.
type Config struct {
	// Mode is the transport model; default TCP.
	Mode Mode
	// Latency is the one-way delay of every message, unless a link
	// overrides it.
	Latency Latency
	// RequestLoss is the probability, 0..1, that a request (client to
	// broker or coordinator) is lost.
	RequestLoss float64
	// ResponseLoss is the probability, 0..1, that a response is lost.
	ResponseLoss float64
	// Duplicate is the probability, 0..1, that a message is delivered
	// twice. Datagram mode only.
	Duplicate float64
	// Reorder is the probability, 0..1, that a message is held back by an
	// extra ReorderDelay, so that messages sent shortly after it overtake
	// it. Datagram mode only (a TCP connection never reorders).
	Reorder float64
	// ReorderDelay is the extra delay of a held-back message, >= 0.
	ReorderDelay time.Duration
	// DisconnectNotice is the probability, 0..1, that a client learns that
	// its connection broke (a TCP RST, one server-to-client latency after
	// the break) instead of only at request.timeout.ms. TCP mode only; a
	// notice never crosses a partition.
	DisconnectNotice float64
	// Links override Latency on single directed links. A link not listed
	// uses Latency. Names must be nodes of the network.
	Links []LinkLatency
	// ServerLoss is the probability, 0..1, that a message between two
	// servers ([Network.SetServers]: markers, verifications and their
	// answers) is lost. RequestLoss and ResponseLoss are the clients'
	// links' and do not apply between servers: Kafka's inter-broker
	// traffic runs inside the cluster, so by default it is lost only by a
	// plan's action, a partition or a crash.
	ServerLoss float64
}

// LinkLatency is the latency of one directed link From -> To.
type LinkLatency struct {
	From, To string
	Latency  Latency
}

// Validate reports the first field out of range, naming it.
func (c *Config) Validate() error {
	if err := checkProb("net.request_loss", "", c.RequestLoss); err != nil {
		return err
	}
	if err := checkProb("net.response_loss", "", c.ResponseLoss); err != nil {
		return err
	}
	if err := checkProb("net.duplicate", "", c.Duplicate); err != nil {
		return err
	}
	if c.Duplicate > 0 && c.Mode != Datagram {
		return fmt.Errorf("net.duplicate=%v needs net.mode=datagram (tcp never duplicates)", c.Duplicate)
	}
	if err := checkProb("net.reorder", "", c.Reorder); err != nil {
		return err
	}
	if c.Reorder > 0 && c.Mode != Datagram {
		return fmt.Errorf("net.reorder=%v needs net.mode=datagram (tcp never reorders a connection)", c.Reorder)
	}
	if err := checkDur("net.reorder.delay", "", c.ReorderDelay); err != nil {
		return err
	}
	if err := checkProb("net.disconnect_notice", "", c.DisconnectNotice); err != nil {
		return err
	}
	if err := checkProb("net.server_loss", "", c.ServerLoss); err != nil {
		return err
	}
	for i := range c.Links {
		l := &c.Links[i]
		if l.From == "" || l.To == "" || l.From == l.To {
			return fmt.Errorf("net.link.latency: link %q>%q needs two different nodes", l.From, l.To)
		}
		if err := l.Latency.Validate("net.link.latency " + l.From + ">" + l.To); err != nil {
			return err
		}
	}
	return c.Latency.Validate("net.latency")
}

// checkProb rejects a probability outside 0..1 in the field name+field
// (the name is built only for the error: validation runs once per run).
func checkProb(name, field string, p float64) error {
	if !(p >= 0 && p <= 1) { // also rejects NaN
		return fmt.Errorf("%s%s=%v is out of range (allowed: 0..1)", name, field, p)
	}
	return nil
}

// ppm converts a validated probability to parts per million. The product
// is converted before the addition so that no compiler fuses the two into
// one multiply-add (arm64 compilers would, amd64 ones do not): the same
// probability gives the same count on every machine.
func ppm(p float64) uint32 { return uint32(float64(p*1_000_000) + 0.5) }

// checkDur rejects a negative duration in the field name+field.
func checkDur(name, field string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("%s%s=%v is negative (allowed: >= 0)", name, field, d)
	}
	return nil
}

// CheckNodes reports a link override that names a node not in names.
func (c *Config) CheckNodes(names []string) error {
	for _, l := range c.Links {
		for _, n := range [2]string{l.From, l.To} {
			if !slices.Contains(names, n) {
				s := slices.Sorted(slices.Values(names))
				return fmt.Errorf("net.link.latency: unknown node %q (known: %s)", n, strings.Join(s, ", "))
			}
		}
	}
	return nil
}

// ParseLinkLatencies parses per-link latency overrides: links separated by
// ";", each "FROM>TO DIST key=value ...", where DIST is a [Dist] name and
// the keys are base, spread, sigma, tail_prob and tail, e.g.
//
//	p1>b1 constant base=5ms; b1>p1 lognormal base=1ms spread=2ms tail_prob=0.01 tail=200ms
//
// Omitted keys are zero. The result still needs [Config.Validate].
func ParseLinkLatencies(s string) ([]LinkLatency, error) {
	var out []LinkLatency
	for part := range strings.SplitSeq(s, ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		from, to, ok := strings.Cut(f[0], ">")
		if !ok || from == "" || to == "" {
			return nil, fmt.Errorf("net.link.latency: %q is not a link (want FROM>TO, e.g. p1>b1)", f[0])
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("net.link.latency: link %s needs a distribution (allowed: constant, uniform, exponential, lognormal)", f[0])
		}
		d, err := ParseDist(f[1])
		if err != nil {
			return nil, fmt.Errorf("net.link.latency: link %s: %v", f[0], err)
		}
		l := LinkLatency{From: from, To: to, Latency: Latency{Dist: d}}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			var err error
			switch k {
			case "base":
				l.Latency.Base, err = time.ParseDuration(v)
			case "spread":
				l.Latency.Spread, err = time.ParseDuration(v)
			case "tail":
				l.Latency.Tail, err = time.ParseDuration(v)
			case "sigma":
				l.Latency.Sigma, err = strconv.ParseFloat(v, 64)
			case "tail_prob":
				l.Latency.TailProb, err = strconv.ParseFloat(v, 64)
			default:
				return nil, fmt.Errorf("net.link.latency: link %s: unknown key %q (allowed: base, spread, sigma, tail_prob, tail)", f[0], k)
			}
			if err != nil {
				return nil, fmt.Errorf("net.link.latency: link %s: %s=%q is not valid", f[0], k, v)
			}
		}
		out = append(out, l)
	}
	return out, nil
}
