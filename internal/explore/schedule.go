package explore

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

// faultKind is a menu item.
type faultKind uint8

const (
	fDrop faultKind = iota
	fDelay
	fDuplicate
	fReject
	fCrash
	fPause
	fStall
	fDrift
	fShutdown
	fElect
	fReassign
	fSlowPoll
	fMute
)

// fault is one injected fault: a menu item at a choice point.
type fault struct {
	kind faultKind
	// cp is the choice point's index in the run.
	cp int32
	// Message faults: the message's direction, request number and link.
	dir            simnet.Direction
	reqNo          int64
	client, server string
	// Node faults: the node and the time (a message fault's at is its
	// message's send time, where a branch of it starts: branch.go); a
	// crash's downtime, a pause's or a stall's length, whether a
	// crash's restart is clean, a drift's rate.
	node   string
	at     sim.Time
	length time.Duration
	clean  bool
	ppm    int32
}

// appendLines appends the fault's plan lines.
func (s *setup) appendLines(b []byte, f fault) []byte {
	msg := func(verb string) []byte {
		b = append(b, "0s "...)
		b = append(b, verb...)
		b = append(b, ' ')
		b = append(b, f.dir.String()...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, f.reqNo, 10)
		b = append(b, ' ')
		b = append(b, f.client...)
		b = append(b, '>')
		b = append(b, f.server...)
		return append(b, '\n')
	}
	switch f.kind {
	case fDrop:
		return msg("drop")
	case fDelay:
		return msg("delay")
	case fDuplicate:
		return msg("duplicate")
	case fReject:
		b = append(b, "0s reject "...)
		b = strconv.AppendInt(b, f.reqNo, 10)
		b = append(b, ' ')
		b = append(b, f.client...)
		b = append(b, '>')
		b = append(b, f.server...)
		return append(b, " NOT_ENOUGH_REPLICAS\n"...)
	case fCrash:
		b = append(b, atTime(f.at)...)
		b = append(b, " crash "...)
		b = append(b, f.node...)
		b = append(b, '\n')
		b = append(b, atTime(f.at.Add(f.length))...)
		b = append(b, " restart "...)
		b = append(b, f.node...)
		if f.clean {
			b = append(b, " clean"...)
		}
		return append(b, '\n')
	case fPause, fStall:
		b = append(b, atTime(f.at)...)
		if f.kind == fPause {
			b = append(b, " pause "...)
		} else {
			b = append(b, " stall "...)
		}
		b = append(b, f.node...)
		b = append(b, ' ')
		b = append(b, f.length.String()...)
		return append(b, '\n')
	case fShutdown, fSlowPoll, fMute:
		b = append(b, atTime(f.at)...)
		b = append(b, [...]string{fShutdown: " shutdown ", fSlowPoll: " slow-poll ", fMute: " mute-heartbeat "}[f.kind]...)
		b = append(b, f.node...)
		b = append(b, ' ')
		b = append(b, f.length.String()...)
		return append(b, '\n')
	case fElect:
		b = append(b, atTime(f.at)...)
		return append(b, " elect-preferred\n"...)
	case fReassign:
		b = append(b, atTime(f.at)...)
		b = append(b, " reassign p0 "...)
		b = append(b, strings.Join(s.menu.Reassign, ",")...)
		return append(b, '\n')
	case fDrift:
		b = append(b, atTime(f.at)...)
		b = append(b, " drift "...)
		b = append(b, f.node...)
		b = append(b, ' ')
		if f.ppm >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(f.ppm), 10)
		return append(b, "ppm\n"...)
	}
	panic("explore: unknown fault kind")
}

// sched is a schedule: its parent (one fault fewer) and its last fault.
// The root, with no faults, has no parent.
type sched struct {
	parent *sched
	f      fault
	depth  int
}

// last returns the choice index of the schedule's last fault, -1 for the
// root.
func (x *sched) last() int32 {
	if x.parent == nil {
		return -1
	}
	return x.f.cp
}

// faults returns the schedule's faults in choice order.
func (x *sched) faults() []fault {
	fs := make([]fault, x.depth)
	for y := x; y.parent != nil; y = y.parent {
		fs[y.depth-1] = y.f
	}
	return fs
}

// actions returns the schedule's plan lines in time order, as a plan
// must be (faults.Plan.CheckSequence): a fault's lines sort among the
// others by their times, lines at the same time stay in choice order.
// The world runs a plan's actions by time, and at the same time in plan
// order, so the sorted plan runs as the choice-ordered one would.
func (s *setup) actions(x *sched) string {
	var b []byte
	for _, f := range x.faults() {
		b = s.appendLines(b, f)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	at := func(l string) time.Duration {
		d, _ := time.ParseDuration(l[:strings.IndexByte(l, ' ')]) // appendLines wrote it
		return d
	}
	slices.SortStableFunc(lines, func(a, b string) int { return cmp.Compare(at(a), at(b)) })
	return strings.Join(lines, "")
}

// plan returns the schedule's whole plan text.
func (s *setup) plan(x *sched) string { return s.actions(x) + s.endText }

// point is a choice point of a run after its schedule's last fault.
type point struct {
	index  int32
	kind   world.ChoiceKind
	at     sim.Time
	events int64
	hash   world.StateHash
	// ChoiceSend
	dir            simnet.Direction
	reqNo          int64
	client, server string
	produce        bool
	// ChoiceTime: the nodes up, and their roles.
	up    []string
	roles []world.Role
}

// options appends the faults the menu offers at p.
func (s *setup) options(p *point, dst []fault) []fault {
	m := &s.menu
	if p.kind == world.ChoiceSend {
		f := fault{cp: p.index, dir: p.dir, reqNo: p.reqNo, client: p.client, server: p.server, at: p.at}
		add := func(k faultKind) { f.kind = k; dst = append(dst, f) }
		if m.Drop {
			add(fDrop)
		}
		if m.Delay {
			add(fDelay)
		}
		if m.Duplicate {
			add(fDuplicate)
		}
		if m.Reject && p.produce {
			add(fReject)
		}
		return dst
	}
	for i, n := range p.up {
		role := p.roles[i]
		f := fault{cp: p.index, node: n, at: p.at}
		for _, l := range m.lengths(false) {
			if m.Crash && p.at.Add(l) <= sim.Time(m.End) {
				f.kind, f.length, f.clean = fCrash, l, false
				dst = append(dst, f)
				if m.Clean && role == world.RoleBroker {
					f.clean = true
					dst = append(dst, f)
					f.clean = false
				}
			}
		}
		if m.Shutdown && role == world.RoleBroker {
			for _, l := range m.lengths(false) {
				f.kind, f.length = fShutdown, l
				dst = append(dst, f)
			}
		}
		if m.Pause {
			for _, l := range m.lengths(true) {
				f.kind, f.length = fPause, l
				dst = append(dst, f)
			}
		}
		if m.Stall && (role == world.RoleBroker || role == world.RoleCoordinator) {
			for _, l := range m.Lengths {
				f.kind, f.length = fStall, l
				dst = append(dst, f)
			}
		}
		if role == world.RoleProducer {
			for _, k := range [2]struct {
				kind faultKind
				ls   []time.Duration
			}{{fSlowPoll, m.SlowPolls}, {fMute, m.Mutes}} {
				for _, l := range k.ls {
					f.kind, f.length = k.kind, l
					dst = append(dst, f)
				}
			}
		}
		if m.Drift {
			f.length = 0
			for _, ppm := range [2]int32{m.DriftPPM, -m.DriftPPM} {
				f.kind, f.ppm = fDrift, ppm
				dst = append(dst, f)
			}
			f.ppm = 0
		}
	}
	if m.Elect {
		dst = append(dst, fault{kind: fElect, cp: p.index, at: p.at})
	}
	if len(m.Reassign) > 0 {
		dst = append(dst, fault{kind: fReassign, cp: p.index, at: p.at})
	}
	return dst
}

// recorder is the probe of a schedule's run: it checks that each of the
// schedule's faults lands on the choice point it was chosen at, and lists
// the choice points after the last one (with state hashes when asked).
type recorder struct {
	s       *setup
	fs      []fault
	next    int
	after   int32
	list    bool
	hashing bool
	points  []point
	opts    []fault
	bad     string
	// hashing is the wall-clock time the state hashes took.
	hashTime time.Duration
	// reduce: skip repeated message numbers (Config.Reduce), sends the
	// messages seen, skipped the faults not offered at repeats.
	reduce  bool
	sends   map[sendKey]struct{}
	skipped int64
	// lastUp and lastRoles are the node list of the last time point
	// kept: the next point that lists the same nodes shares it; upBytes
	// counts the lists kept (Memory).
	lastUp    []string
	lastRoles []world.Role
	upBytes   int64
}

// sendKey names a message as a plan rule does: its direction, its
// number on its link and the link.
type sendKey struct {
	dir            simnet.Direction
	reqNo          int64
	client, server string
}

func (r *recorder) Choice(cp *world.ChoicePoint) {
	idx := int32(cp.Index)
	if r.next < len(r.fs) && r.fs[r.next].cp == idx {
		f := r.fs[r.next]
		r.next++
		ok := false
		switch f.kind {
		case fCrash, fPause, fStall, fDrift, fShutdown, fSlowPoll, fMute:
			ok = cp.Kind == world.ChoiceTime && cp.At == f.at && slices.Contains(cp.Up, f.node)
		case fElect, fReassign:
			ok = cp.Kind == world.ChoiceTime && cp.At == f.at
		default:
			ok = cp.Kind == world.ChoiceSend && cp.Dir == f.dir && cp.ReqNo == f.reqNo && cp.Client == f.client && cp.Server == f.server && cp.Live
		}
		if !ok && r.bad == "" {
			r.bad = "choice point " + strconv.Itoa(int(idx)) + " is not where its fault was chosen"
		}
	}
	repeat := false
	if r.reduce && cp.Kind == world.ChoiceSend {
		// A plan rule takes the first message of its number on its
		// link (world's takeRule), live or not: a fault chosen at a
		// later one would fire at the first, as another schedule's.
		k := sendKey{cp.Dir, cp.ReqNo, cp.Client, cp.Server}
		if _, repeat = r.sends[k]; !repeat {
			if r.sends == nil {
				r.sends = map[sendKey]struct{}{}
			}
			r.sends[k] = struct{}{}
		}
	}
	if idx <= r.after || !r.list {
		return
	}
	p := point{index: idx, kind: cp.Kind, at: cp.At, events: cp.Events}
	if cp.Kind == world.ChoiceSend {
		if !cp.Live {
			return
		}
		p.dir, p.reqNo, p.client, p.server, p.produce = cp.Dir, cp.ReqNo, cp.Client, cp.Server, cp.Produce
		n := len(r.s.options(&p, r.opts[:0]))
		if repeat {
			r.skipped += int64(n)
			return
		}
		if n == 0 {
			return
		}
	} else {
		shared := r.lastUp != nil && slices.Equal(cp.Up, r.lastUp) && slices.Equal(cp.UpRole, r.lastRoles)
		if shared {
			p.up, p.roles = r.lastUp, r.lastRoles
		} else {
			p.up, p.roles = slices.Clone(cp.Up), slices.Clone(cp.UpRole)
		}
		if r.hashing {
			t := time.Now()
			p.hash = cp.StateHash()
			r.hashTime += time.Since(t)
		} else if len(r.s.options(&p, r.opts[:0])) == 0 {
			return
		}
		if !shared {
			r.lastUp, r.lastRoles = p.up, p.roles
			r.upBytes += upListBytes(p.up, p.roles)
		}
	}
	r.points = append(r.points, p)
}

// outcome is what the search keeps of a run.
type outcome struct {
	events int64
	// violated lists the invariants violated, each with its first
	// violation.
	violated []violation
	// points are the choice points after the last fault (internal
	// schedules only).
	points []point
	// runTime is the run's wall-clock time, hashTime the part of it its
	// state hashes took (for the speed line; never in a result).
	runTime, hashTime time.Duration
	// skipped counts the faults not offered at repeated message numbers
	// (Config.Reduce).
	skipped int64
	// upBytes is what the points' node lists take (keptBytes).
	upBytes int64
}

type violation struct {
	Invariant string `json:"invariant"`
	Detail    string `json:"detail"`
	AtNs      int64  `json:"at_ns"`
}

// run runs schedule x. list asks for its choice points after its last
// fault; hashing for their state hashes.
func (s *setup) run(x *sched, list, hashing bool, res *scenarios.Resolved, hc *world.HashCache) (*outcome, error) {
	spec := s.base
	spec.Resolved, spec.HashCache = res, hc
	spec.PlanText = s.plan(x)
	// Only a duplicated request makes a number repeat: the search
	// tracks the numbers when the menu can duplicate.
	rec := &recorder{s: s, fs: x.faults(), after: x.last(), list: list, hashing: hashing, reduce: s.cfg.Reduce && s.menu.Duplicate}
	spec.Probe = rec
	start := time.Now()
	out, err := scenarios.Run(spec)
	if err != nil {
		return nil, err
	}
	return s.outcomeOf(out, rec, spec.PlanText, time.Since(start))
}

// outcomeOf is what the search keeps of out, the run of plan under rec
// that took took.
func (s *setup) outcomeOf(out *scenarios.Result, rec *recorder, plan string, took time.Duration) (*outcome, error) {
	if rec.bad != "" || rec.next != len(rec.fs) {
		return nil, &inconsistency{plan: plan, why: rec.bad}
	}
	o := &outcome{events: out.Events, points: rec.points, runTime: took, hashTime: rec.hashTime, skipped: rec.skipped, upBytes: rec.upBytes}
	for _, v := range out.Violations {
		if !slices.ContainsFunc(o.violated, func(w violation) bool { return w.Invariant == v.Invariant }) {
			o.violated = append(o.violated, violation{Invariant: v.Invariant, Detail: v.Detail, AtNs: v.AtNs})
		}
	}
	return o, nil
}

// inconsistency is a schedule whose faults did not land where they were
// chosen: a defect of the explorer or of the world's determinism.
type inconsistency struct{ plan, why string }

func (e *inconsistency) Error() string {
	why := e.why
	if why == "" {
		why = "the run ended before a fault's choice point"
	}
	return "explore: internal error: " + why + " in the run of plan\n" + strings.TrimSpace(e.plan)
}
