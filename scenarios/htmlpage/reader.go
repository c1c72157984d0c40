package htmlpage

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/trace"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

// reader reads the observation stream and builds the run's [Run]. It
// keeps a trace writer of its own, so that every item knows the trace
// line it came from.
type reader struct {
	run   *Run
	names []string
	plan  *faults.Plan
	tw    *trace.Writer
	// lane maps a node id to its lane; apps is the number of app lanes
	// (application a is lane a).
	lane []int32
	apps int32
	// brokerLane is the first broker's lane, where a violation without
	// a record is marked.
	brokerLane int32
	kindIdx    map[string]int32
	// sent maps a message id to its Msg until it arrives or is lost.
	sent map[uint64]int32
	// reqRecs are the records a produce request carries, by its link
	// and number, for its response.
	reqRecs map[linkKey][]model.RecordID
	// pending are the transactional records appended on a broker's
	// partition for a producer id whose marker has not come yet.
	pending  map[markerKey][]model.RecordID
	recItems map[model.RecordID][]Ref
	// recLane is the lane of a record's last append verdict.
	recLane map[model.RecordID]int32
	// epochs is the last epoch handed out per producer id.
	epochs map[model.ProducerID]int16
	open   []openBand
	ended  bool
}

type linkKey struct {
	client, server int32
	n              int64
}

type markerKey struct {
	broker, partition int32
	pid               model.ProducerID
}

// openBand is a band whose fault has not ended yet.
type openBand struct {
	band int
	a    faults.Action
}

func newReader(l *world.Layout) *reader {
	x := &reader{run: &Run{}, names: l.Names, plan: l.Plan, tw: trace.New(l.Names, nil),
		kindIdx: map[string]int32{}, sent: map[uint64]int32{}, reqRecs: map[linkKey][]model.RecordID{},
		pending: map[markerKey][]model.RecordID{}, recItems: map[model.RecordID][]Ref{},
		recLane: map[model.RecordID]int32{}, epochs: map[model.ProducerID]int16{}, apps: int32(l.Apps)}
	x.tw.Keep()
	for a := 0; a < l.Apps; a++ {
		x.run.Lanes = append(x.run.Lanes, Lane{Name: "app" + strconv.Itoa(a), Kind: "app"})
	}
	kinds := make([]string, len(l.Names))
	for i, n := range l.Names {
		switch {
		case i < len(l.Instances):
			kinds[i] = "producer"
		case n == world.Topology{}.ControllerName():
			kinds[i] = "controller"
		default:
			kinds[i] = "coordinator"
		}
	}
	for _, b := range l.Brokers {
		kinds[b] = "broker"
	}
	for i, n := range l.Names {
		x.lane = append(x.lane, x.apps+int32(i))
		x.run.Lanes = append(x.run.Lanes, Lane{Name: n, Kind: kinds[i]})
	}
	x.brokerLane = x.apps
	if len(l.Brokers) > 0 {
		x.brokerLane = x.lane[l.Brokers[0]]
	}
	return x
}

// Held is the number of items the reader holds: they count in the run's
// state (scenarios.Spec.MaxState).
func (x *reader) Held() int64 { return int64(x.run.Items() + len(x.run.Lines)) }

func (x *reader) nodeLane(n int32) int32 {
	if n < 0 || int(n) >= len(x.lane) {
		return -1
	}
	return x.lane[n]
}

func (x *reader) laneOf(name string) int32 {
	if i := slices.Index(x.names, name); i >= 0 {
		return x.lane[i]
	}
	return -1
}

func (x *reader) mark(m Mark) Ref {
	x.run.Marks = append(x.run.Marks, m)
	return ref(RefMark, len(x.run.Marks)-1)
}

func (x *reader) call(c Call) Ref {
	x.run.Calls = append(x.run.Calls, c)
	return ref(RefCall, len(x.run.Calls)-1)
}

func (x *reader) addRec(id model.RecordID, r Ref) {
	items := x.recItems[id]
	if len(items) > 0 && items[len(items)-1] == r {
		return
	}
	x.recItems[id] = append(items, r)
}

func (x *reader) kind(desc string) int32 {
	k := desc
	if i := strings.IndexAny(k, "# "); i >= 0 {
		k = k[:i]
	}
	i, ok := x.kindIdx[k]
	if !ok {
		i = int32(len(x.run.Kinds))
		x.kindIdx[k] = i
		x.run.Kinds = append(x.run.Kinds, k)
	}
	return i
}

// Observe adds o's items, if it has any.
func (x *reader) Observe(o *model.Obs) {
	n0 := len(x.tw.Lines())
	x.tw.Observe(o)
	line := int32(-1)
	if lines := x.tw.Lines(); len(lines) > n0 {
		line = int32(n0)
		x.run.Lines = lines
	}
	lane := x.nodeLane(o.Node)
	switch o.Kind {
	case model.ObsSent:
		x.sentMsg(o, line)
		return
	case model.ObsDelivered, model.ObsLost:
		i, ok := x.sent[o.MsgID]
		if ok {
			delete(x.sent, o.MsgID)
			m := &x.run.Msgs[i]
			m.Arrive, m.ArriveLine = o.At, line
			if o.Kind == model.ObsLost {
				m.Flags |= MsgLost
				m.Fate = o.Fate
			}
			return
		}
		// A duplicate's copy: a mark where it arrived.
	case model.ObsVerdict:
		x.verdict(o, lane, line)
		return
	case model.ObsMarker:
		text := "marker " + o.Marker.String() + " p" + strconv.Itoa(int(o.Partition)) + " pid=" + strconv.FormatInt(int64(o.PID), 10) + " e=" + strconv.Itoa(int(o.Epoch))
		if o.Err != model.ErrNone {
			text += " " + o.Err.String()
		}
		r := x.mark(Mark{At: o.At, Lane: lane, Class: MarkMarker, Line: line, Text: text})
		k := markerKey{o.Node, o.Partition, o.PID}
		for _, id := range x.pending[k] {
			x.addRec(id, r)
		}
		delete(x.pending, k)
		return
	case model.ObsEpoch:
		if o.Err == model.ErrNone && x.newEpoch(o.PID, o.Epoch) {
			x.mark(Mark{At: o.At, Lane: lane, Class: MarkEpoch, Line: line, Text: "epoch pid=" + strconv.FormatInt(int64(o.PID), 10) + " e=" + strconv.Itoa(int(o.Epoch))})
			return
		}
	case model.ObsTxnState:
		c := uint8(MarkState)
		if x.newEpoch(o.PID, o.Epoch) {
			c = MarkEpoch
		}
		x.mark(Mark{At: o.At, Lane: lane, Class: c, Line: line, Text: o.Text + " pid=" + strconv.FormatInt(int64(o.PID), 10) + " e=" + strconv.Itoa(int(o.Epoch)) + " " + model.TxnState(o.N).String()})
		return
	case model.ObsAppSend, model.ObsAppResend:
		r := x.call(Call{At: o.At, From: x.appLane(o.App), To: lane, Class: CallSend, Line: line, Text: "send " + o.Record.ID.String()})
		x.addRec(o.Record.ID, r)
		return
	case model.ObsOutcome:
		c, t := uint8(CallAck), "ack "+o.Outcome.ID.String()
		if o.Outcome.Err != model.ErrNone {
			c, t = CallFail, "fail "+o.Outcome.ID.String()+" "+o.Outcome.Err.String()
		}
		x.addRec(o.Outcome.ID, x.call(Call{At: o.At, From: lane, To: x.appLane(o.App), Class: c, Line: line, Text: t}))
		return
	case model.ObsTxnOutcome:
		r := x.call(Call{At: o.At, From: lane, To: x.appLane(o.App), Class: CallTxn, Line: line, Text: "transaction " + o.Text})
		for _, id := range o.IDs {
			x.addRec(id, r)
		}
		return
	case model.ObsFault:
		x.fault(o.At, &x.plan.Actions[o.N], line)
		return
	case model.ObsResume:
		x.closeBands(o.At, func(a faults.Action) bool { return a.Span() == faults.UntilResumed && x.only(a, o.Node) })
	case model.ObsRestart:
		x.closeBands(o.At, func(a faults.Action) bool { return a.Span() == faults.UntilRestarted && x.only(a, o.Node) })
	}
	if line >= 0 && lane >= 0 {
		c := uint8(MarkOther)
		if o.Kind == model.ObsNote || o.Kind == model.ObsResume || o.Kind == model.ObsRestart || o.Kind == model.ObsCrash {
			c = MarkNote
		}
		x.mark(Mark{At: o.At, Lane: lane, Class: c, Line: line, Text: lineText(x.run.Lines[line])})
	}
}

func (x *reader) appLane(app int32) int32 {
	if app < 0 || app >= x.apps {
		return -1
	}
	return app
}

// only reports whether a names exactly node n.
func (x *reader) only(a faults.Action, n int32) bool {
	ns := a.Nodes()
	return len(ns) == 1 && n >= 0 && int(n) < len(x.names) && ns[0] == x.names[n]
}

// newEpoch reports whether epoch is a new one for pid, and notes it.
func (x *reader) newEpoch(pid model.ProducerID, epoch int16) bool {
	if e, ok := x.epochs[pid]; ok && e == epoch {
		return false
	}
	x.epochs[pid] = epoch
	return true
}

func (x *reader) sentMsg(o *model.Obs, line int32) {
	desc := string(o.Msg.AppendDescription(nil))
	m := Msg{Sent: o.At, Arrive: o.At, From: x.nodeLane(o.Node), To: x.nodeLane(o.Peer), Kind: x.kind(desc), Line: line, ArriveLine: -1, Text: desc}
	if o.Flag {
		m.Flags |= MsgResponse
	}
	if o.Fate != "" {
		m.Flags |= MsgLost
		m.Fate = o.Fate
		if o.Forced {
			m.Fate += " (plan)"
		}
	}
	x.run.Msgs = append(x.run.Msgs, m)
	i := len(x.run.Msgs) - 1
	r := ref(RefMsg, i)
	if o.Fate == "" {
		x.sent[o.MsgID] = int32(i)
	}
	switch msg := o.Msg.(type) {
	case *model.ProduceRequest:
		var ids []model.RecordID
		for bi := range msg.Batches {
			for _, rec := range msg.Batches[bi].Records {
				ids = append(ids, rec.ID)
				x.addRec(rec.ID, r)
			}
		}
		if !o.Flag {
			x.reqRecs[linkKey{o.Node, o.Peer, o.N}] = ids
		}
	case *model.WriteTxnMarkersRequest:
		for _, mk := range msg.Markers {
			for _, id := range x.pending[markerKey{o.Peer, mk.Partition, mk.PID}] {
				x.addRec(id, r)
			}
		}
	}
	if o.Flag {
		k := linkKey{o.Peer, o.Node, o.N}
		if ids, ok := x.reqRecs[k]; ok {
			for _, id := range ids {
				x.addRec(id, r)
			}
			delete(x.reqRecs, k)
		}
	}
}

func (x *reader) verdict(o *model.Obs, lane, line int32) {
	c := uint8(MarkAppend)
	switch {
	case o.Result.Duplicate:
		c = MarkDuplicate
	case o.Result.Err != model.ErrNone:
		c = MarkReject
	}
	r := x.mark(Mark{At: o.At, Lane: lane, Class: c, Line: line, Text: string(trace.AppendVerdict(nil, &o.Batch, &o.Result))})
	k := markerKey{o.Node, o.Batch.Partition, o.Batch.PID}
	for _, rec := range o.Batch.Records {
		x.addRec(rec.ID, r)
		x.recLane[rec.ID] = lane
		if c == MarkAppend && o.Batch.Transactional {
			x.pending[k] = append(x.pending[k], rec.ID)
		}
	}
}

// fault draws a fault-plan action: an interval as a band on each of its
// nodes' lanes, an instant as a mark. It first closes the intervals the
// action ends (a heal its partition).
func (x *reader) fault(now sim.Time, a *faults.Timed, line int32) {
	x.closeBands(now, func(o faults.Action) bool { return o.Span() == faults.UntilClosed && a.Closes(o) })
	text := string(a.AppendTo(nil))
	for _, n := range a.Nodes() {
		l := x.laneOf(n)
		if l < 0 {
			continue
		}
		if a.Span() == faults.Instant {
			x.mark(Mark{At: now, Lane: l, Class: MarkFault, Line: line, Text: text})
			continue
		}
		x.run.Bands = append(x.run.Bands, Band{From: now, Until: -1, Lane: l, Line: line, Text: text})
		x.open = append(x.open, openBand{band: len(x.run.Bands) - 1, a: a.Action})
	}
}

// closeBands ends the open bands whose action matches.
func (x *reader) closeBands(now sim.Time, match func(faults.Action) bool) {
	x.open = slices.DeleteFunc(x.open, func(o openBand) bool {
		if match(o.a) {
			x.run.Bands[o.band].Until = now
			return true
		}
		return false
	})
}

// End finishes the run's data at its end.
func (x *reader) End(e *world.RunEnd) {
	r := x.run
	r.End, r.PlanEnd = e.At, e.PlanEnd
	for _, o := range x.open {
		r.Bands[o.band].Until = min(e.At, e.PlanEnd)
	}
	x.open = nil
	x.markLate()
	r.Violations = slices.Clone(e.Violations)
	for i, v := range e.Violations {
		if i == maxViolationMarks {
			break
		}
		lane := x.brokerLane
		if id, ok := violationRecord(v.Detail); ok {
			if l, ok := x.recLane[id]; ok {
				lane = l
			}
		}
		x.mark(Mark{At: sim.Time(v.AtNs), Lane: lane, Class: MarkViolation, Line: -1, Text: v.Invariant + ": " + v.Detail})
	}
	ids := make([]model.RecordID, 0, len(x.recItems))
	for id := range x.recItems {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b model.RecordID) int {
		if a.App != b.App {
			return int(a.App - b.App)
		}
		return cmpInt64(a.N, b.N)
	})
	for _, id := range ids {
		r.Records = append(r.Records, RecordPath{ID: id, Items: x.recItems[id]})
	}
	x.ended = true
}

// maxViolationMarks bounds the violation marks a page draws; every
// violation is listed in its header.
const maxViolationMarks = 100

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// markLate flags the messages whose transit took more than LateFactor
// times the run's median transit.
func (x *reader) markLate() {
	var ts []sim.Time
	for i := range x.run.Msgs {
		if m := &x.run.Msgs[i]; m.Flags&MsgLost == 0 {
			ts = append(ts, m.Arrive-m.Sent)
		}
	}
	if len(ts) == 0 {
		return
	}
	slices.Sort(ts)
	med := ts[len(ts)/2]
	if med <= 0 {
		return
	}
	for i := range x.run.Msgs {
		if m := &x.run.Msgs[i]; m.Flags&MsgLost == 0 && m.Arrive-m.Sent > LateFactor*med {
			m.Flags |= MsgLate
		}
	}
}

// recordID matches a record id in a violation's detail: "a0:20".
var recordID = regexp.MustCompile(`\ba(\d+):(\d+)\b`)

// violationRecord returns the first record a violation's detail names.
func violationRecord(detail string) (model.RecordID, bool) {
	m := recordID.FindStringSubmatch(detail)
	if m == nil {
		return model.RecordID{}, false
	}
	app, err1 := strconv.ParseInt(m[1], 10, 32)
	n, err2 := strconv.ParseInt(m[2], 10, 64)
	if err1 != nil || err2 != nil {
		return model.RecordID{}, false
	}
	return model.RecordID{App: int32(app), N: n}, true
}

// lineText is a trace line without its time: "p1 send ...".
func lineText(l string) string {
	if _, rest, ok := strings.Cut(l, " "); ok && strings.HasPrefix(l, "t=") {
		return rest
	}
	return l
}
