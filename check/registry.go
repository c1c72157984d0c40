package check

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
)

// registry lists every invariant in report order. Adding an invariant is a
// file with its type and constructor, and one line here.
var registry = []struct {
	name string
	new  func(cfg Config, lv *logView) Invariant
}{
	{InvDup, newDup},
	{InvLoss, newLoss},
	{InvOrder, newOrder},
	{InvSeq, newSeq},
	{InvDedup, newDedup},
	{InvFence, newFence},
	{InvState, newState},
	{InvEpoch, newEpoch},
	{InvEOS, newEOS},
	{InvTxn, newTxn},
	{LiveProd, newLiveProd},
	{LiveLSO, newLiveLSO},
	{SimOutcome, newOutcome},
}

// Invariants returns the names of every invariant a [Suite] judges, in
// report order.
func Invariants() []string {
	out := make([]string, len(registry))
	for i, r := range registry {
		out[i] = r.name
	}
	return out
}

// Config tells the invariants what the run's ranges and nodes are.
type Config struct {
	// Seq is the producers' sequence space (INV-SEQ).
	Seq model.SeqSpace
	// MaxEpoch is the largest valid producer epoch (INV-EPOCH); 0 means
	// Kafka's 32767.
	MaxEpoch int16
	// Names are the world's node names, indexed by node id ("p1" in
	// "instance p1").
	Names []string
	// Replicated: the run replicates its partitions; a leader's append
	// is committed only once it is below the final high watermark of the
	// final leader, so the committed view is built from the run's final
	// logs ([model.ObsFinalLog]) rather than from the appends.
	Replicated bool
}

// maxEpoch returns MaxEpoch, or Kafka's 32767 when it is unset.
func (c Config) maxEpoch() int16 {
	if c.MaxEpoch == 0 {
		return 32767
	}
	return c.MaxEpoch
}

// name returns node's name, or "node N" when the table has none.
func (c Config) name(node int32) string {
	if node >= 0 && int(node) < len(c.Names) {
		return c.Names[node]
	}
	return "node " + strconv.Itoa(int(node))
}

// Suite judges one run: it fans every observation out to the committed
// log view, the tally of [Counts] and every registered invariant, and
// reports their verdicts in registry order. A Suite is for one run and is
// not safe for concurrent use.
type Suite struct {
	lv    *logView
	tally tally
	invs  []Invariant
}

var _ model.Observer = (*Suite)(nil)

// NewSuite returns a suite with every registered invariant, for a run
// with the given configuration.
func NewSuite(cfg Config) *Suite {
	s := &Suite{lv: newLogView()}
	s.lv.replicated = cfg.Replicated
	s.tally.lv = s.lv
	s.invs = make([]Invariant, len(registry))
	for i, r := range registry {
		s.invs[i] = r.new(cfg, s.lv)
	}
	return s
}

// Observe reads one observation: the log view first, so that the tally and
// the invariants see what it committed, then the tally, then each
// invariant in registry order.
func (s *Suite) Observe(o *model.Obs) {
	s.lv.observe(o)
	s.tally.observe(o)
	for _, inv := range s.invs {
		inv.Observe(o)
	}
}

// Finish judges the run; call it after the [model.ObsRunEnd] observation.
// It returns the run's counts and its violations in registry order, each
// invariant's own in its own order (an empty, non-nil slice when every
// invariant held).
//
// A scripted run (the scenarios package's scripted world) judges the
// stream at several points: it observes a run end and calls Finish each
// time, then goes on observing. Finish changes nothing the suite has
// seen, so each call judges the whole stream up to the latest run end.
func (s *Suite) Finish() (Counts, []Violation) {
	vs := []Violation{}
	for _, inv := range s.invs {
		vs = append(vs, inv.Finish()...)
	}
	return s.tally.finish(), vs
}
