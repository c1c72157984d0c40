package net

import (
	"fmt"
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
}

// Validate reports the first field out of range, naming it.
func (c *Config) Validate() error {
	if err := checkProb("net.request_loss", c.RequestLoss); err != nil {
		return err
	}
	if err := checkProb("net.response_loss", c.ResponseLoss); err != nil {
		return err
	}
	if err := checkProb("net.duplicate", c.Duplicate); err != nil {
		return err
	}
	if c.Duplicate > 0 && c.Mode != Datagram {
		return fmt.Errorf("net.duplicate=%v needs net.mode=datagram (tcp never duplicates)", c.Duplicate)
	}
	return c.Latency.Validate("net.latency")
}

func checkProb(name string, p float64) error {
	if !(p >= 0 && p <= 1) { // also rejects NaN
		return fmt.Errorf("%s=%v is out of range (allowed: 0..1)", name, p)
	}
	return nil
}

// ppm converts a validated probability to parts per million.
func ppm(p float64) uint32 { return uint32(p*1_000_000 + 0.5) }

// checkDur rejects negative durations.
func checkDur(name string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("%s=%v is negative (allowed: >= 0)", name, d)
	}
	return nil
}
