package simtest

import (
	"errors"
	"strings"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Env is one interaction: the scripted World ([world.Script]) that a
// script drives, built when the first command needs it, and what it
// printed.
type Env struct {
	seed uint64
	sets []params.KV
	s    *world.Script
	// out collects the trace lines of the current command; All every
	// line since New.
	out strings.Builder
	All strings.Builder
}

// New returns an environment whose world will run with seed (the
// producers' backoff jitter draws from it). Its producers send a record's
// batch at once (linger.ms=0, the Java client's default before 4.0), so
// that a script's "send" puts a request on the wire without advancing
// time; a script may set linger.ms again with "broker linger.ms=5".
func New(seed uint64) *Env {
	return &Env{seed: seed, sets: []params.KV{{Key: "linger.ms", Value: "0"}}}
}

// tee receives the world's trace lines.
type tee struct{ e *Env }

func (t tee) Write(p []byte) (int, error) {
	t.e.out.Write(p)
	t.e.All.Write(p)
	return len(p), nil
}

// Configure adds world parameters (any scenario parameter by name; see
// [world.ScriptConfig]). It must come before the world is built.
func (e *Env) Configure(sets ...params.KV) error {
	if e.s != nil {
		return errors.New("the world is built already: set its parameters before any producer")
	}
	e.sets = append(e.sets, sets...)
	return nil
}

// World returns the scripted world, building it on first use.
func (e *Env) World() (*world.Script, error) {
	if e.s == nil {
		s, err := world.NewScript(world.ScriptConfig{Seed: e.seed, Sets: e.sets, Out: tee{e}})
		if err != nil {
			return nil, err
		}
		e.s = s
	}
	return e.s, nil
}

// Filter selects messages in flight; empty fields match anything. Type is
// as [world.Flight.Type] names it.
type Filter struct {
	From, To, Type string
}

func (f Filter) match(m *world.Flight) bool {
	return (f.From == "" || f.From == m.From) && (f.To == "" || f.To == m.To) && (f.Type == "" || f.Type == m.Type())
}

// Select returns the ids of up to n (all when n <= 0) messages in flight
// matching f, oldest first.
func Select(s *world.Script, f Filter, n int) []uint64 {
	var out []uint64
	for _, m := range s.InFlight() {
		if f.match(&m) && (n <= 0 || len(out) < n) {
			out = append(out, m.ID)
		}
	}
	return out
}
