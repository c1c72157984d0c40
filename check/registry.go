package check

import (
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
)

// invariant is what the suite holds of an invariant: an [Invariant] it
// can make ready for a new run.
type invariant interface {
	Invariant
	// reset makes the invariant judge a new run with configuration cfg
	// on log view lv, as if it had just been made: every field is set
	// afresh, its slices truncated and its maps cleared rather than
	// made again (reset_test.go holds every field to this).
	reset(cfg Config, lv *logView)
	// reads lists the observation kinds Observe reads: the suite hands
	// it those alone (TestReads holds a suite that hands it every
	// observation to the same state and verdicts). An invariant that
	// reads the log view's commits reads the kinds that make them
	// (commitKinds).
	reads() []model.ObsKind
}

// registry lists every invariant in report order. Adding an invariant is a
// file with its type, a constructor of its zero value and its reset
// method, and one line here.
var registry = []struct {
	name string
	new  func() invariant
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
	{InvRead, newRead},
	{InvPos, newPos},
	{LiveRead, newLiveRead},
	{LiveOffset, newLiveOffset},
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
	// ConsumerStuck is LIVE-READ's bound: how long a read_committed
	// consumer may wait at a last stable offset that does not move (the
	// consumer.stuck.ms parameter); 0 means 10 s.
	ConsumerStuck time.Duration
	// UnstableBound is LIVE-OFFSET' bound: how long a group member's
	// require_stable offset fetches may be answered UNSTABLE_OFFSET_COMMIT
	// (unstable.bound.ms, or its derived default); 0 means 90 s.
	UnstableBound time.Duration
	// InputBase, InputParts and InputSkip0 place the applications' input
	// topic (app.input=topic): application a's input record n is at
	// offset n/InputParts of partition InputBase + a*InputParts +
	// n%InputParts, after InputSkip0 offsets in its first partition
	// (INV-EOS with per-partition offsets).
	InputBase, InputParts int32
	InputSkip0            int64
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
// reports their verdicts in registry order. A Suite judges one run at a
// time ([Suite.Reset] starts the next) and is not safe for concurrent
// use.
type Suite struct {
	lv    *logView
	tally tally
	invs  []invariant
	// byKind lists, for each observation kind, the invariants that read
	// it, in registry order.
	byKind [256][]invariant
	// touched has bit i set when an observation since the last
	// TakeTouched may have changed part i ([Suite.Parts]); touches is
	// the bits each observation kind sets.
	touched uint64
	touches [256]uint64
}

var _ model.Observer = (*Suite)(nil)

// NewSuite returns a suite with every registered invariant, for a run
// with the given configuration.
func NewSuite(cfg Config) *Suite {
	s := &Suite{}
	s.Reset(cfg)
	return s
}

// Reset makes s judge a new run with configuration cfg: afterwards s
// behaves exactly as NewSuite(cfg) would (same counts, same violations,
// same state field by field), but it keeps the memory it already has
// (slices are truncated, maps cleared), so that a sweep running seed
// after seed on one world does not build its checkers again. Nothing of
// the runs s judged before reaches the new one. What an earlier Finish
// returned is the caller's and stays valid. Reset of the zero Suite is
// NewSuite.
func (s *Suite) Reset(cfg Config) {
	if s.lv == nil {
		s.lv = &logView{}
	}
	s.lv.reset(cfg.Replicated)
	s.tally = tally{lv: s.lv}
	if len(s.invs) != len(registry) {
		s.invs = make([]invariant, len(registry))
		for i, r := range registry {
			s.invs[i] = r.new()
		}
		if len(s.invs) > 62 {
			panic("check: more invariants than Suite.touched has bits")
		}
		s.byKind = [256][]invariant{}
		s.touches = [256]uint64{}
		for i, inv := range s.invs {
			for _, k := range inv.reads() {
				s.byKind[k] = append(s.byKind[k], inv)
				s.touches[k] |= 1 << (i + 2)
			}
		}
		s.touches[model.ObsSent] = 1 // what lv.tx reads
		for k := range s.touches {
			if k != int(model.ObsSent) && !unread[k] {
				s.touches[k] |= 3 // lv and the tally
			}
		}
	}
	for _, inv := range s.invs {
		inv.reset(cfg, s.lv)
	}
	s.touched = 1<<(len(s.invs)+2) - 1
}

// Parts returns the parts of the suite's state, for a state hash that
// walks only those an observation may have changed ([Suite.TakeTouched]):
// the committed log view (a pointer every other part holds), the tally,
// and each invariant in registry order. The list is the suite's: the
// caller does not change it.
func (s *Suite) Parts() []any {
	ps := make([]any, 0, len(s.invs)+2)
	ps = append(ps, s.lv, &s.tally)
	for _, inv := range s.invs {
		ps = append(ps, inv)
	}
	return ps
}

// TakeTouched returns the parts ([Suite.Parts], bit i for part i) the
// observations since the last call may have changed, and forgets them.
func (s *Suite) TakeTouched() uint64 {
	t := s.touched
	s.touched = 0
	return t
}

// Observe reads one observation: the log view first, so that the tally and
// the invariants see what it committed, then the tally, then each
// invariant that reads its kind, in registry order.
//
// The network's kinds are most of the stream (a send and a delivery per
// message) and are read by the transaction facts alone (a send) or by no
// one: they skip the rest (unread, tested by TestUnreadKinds).
func (s *Suite) Observe(o *model.Obs) {
	s.touched |= s.touches[o.Kind]
	if o.Kind == model.ObsSent {
		s.lv.tx.observe(o) // all that lv.observe, the tally and the invariants do with a send
		return
	}
	if unread[o.Kind] {
		return
	}
	s.lv.observe(o)
	s.tally.observe(o)
	for _, inv := range s.byKind[o.Kind] {
		inv.Observe(o)
	}
}

// commitKinds are the observation kinds that may commit entries to the
// log view (logView.observe): an invariant reading its commits reads
// these.
var commitKinds = []model.ObsKind{model.ObsVerdict, model.ObsMarker, model.ObsFinalLog}

// unreadKinds are the observation kinds no checker reads; unread is the
// same as a table by kind.
var unreadKinds = [...]model.ObsKind{model.ObsDelivered, model.ObsLost, model.ObsDup, model.ObsHold, model.ObsDisconnected}

var unread = func() (t [256]bool) {
	for _, k := range unreadKinds {
		t[k] = true
	}
	return t
}()

// Finish judges the run; call it after the [model.ObsRunEnd] observation.
// It returns the run's counts and its violations in registry order, each
// invariant's own in its own order (an empty, non-nil slice when every
// invariant held).
//
// A scripted run (the scenarios package's scripted world) judges the
// stream at several points: it observes a run end and calls Finish each
// time, then goes on observing. Finish changes nothing the suite has
// seen, so each call judges the whole stream up to the latest run end.
//
// The violations returned are the caller's: a later Finish or Reset does
// not touch them.
func (s *Suite) Finish() (Counts, []Violation) {
	s.touched = 1<<(len(s.invs)+2) - 1 // the invariants' Finish may use their state as scratch
	var each [24][]Violation           // room for the registry (16 invariants) and a few more
	parts := each[:0]
	if len(s.invs) > len(each) {
		parts = make([][]Violation, 0, len(s.invs))
	}
	n := 0
	for _, inv := range s.invs {
		v := inv.Finish()
		parts = append(parts, v)
		n += len(v)
	}
	// An invariant's list may be its scratch memory: copy it out.
	vs := make([]Violation, 0, n)
	for _, v := range parts {
		vs = append(vs, v...)
	}
	s.lv.views = truncatedViews(s.lv.views)
	// The records the last observation committed: one element per
	// record a marker committed, so up to a whole transaction's.
	s.lv.commits = trimmed(s.lv.commits)
	return s.tally.finish(), vs
}
