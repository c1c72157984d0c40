package simtest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Handle runs one datadriven command and returns its output: the trace
// lines of what happened (without their time), or what the command
// prints. Node names are the World's: brokers b1, b2, ..., the
// coordinator c1, and producer instances as new-producer names them. The
// commands:
//
//	broker [partitions=1] [brokers=1] [window=5] [dedup=false] [KEY=VALUE...]
//	    Set the world's parameters, before any producer: any scenario
//	    parameter by name (simulate -describe lists them); window and
//	    dedup stand for broker.window and broker.dedup.
//	new-producer p1 [app=0] [KEY=VALUE...]
//	    Add a producer instance for application app (default: a new
//	    application) with the world's parameters and these producer
//	    parameters (enable.idempotence, acks, retries,
//	    max.in.flight.requests.per.connection, delivery.timeout.ms,
//	    transactional.id, client.policy, ...), resolved by Kafka's rules;
//	    prints the configuration notes or error.
//	start p1
//	    Start the instance (an idempotent one sends InitProducerId; a
//	    later instance of an application takes it over).
//	send p1 [part=0] [n=1]
//	    The application sends n new records to partition part.
//	deliver [from=p1] [to=b1] [type=Produce] [n=1]
//	    Deliver the matching messages in flight (all when n is absent),
//	    oldest first. Types: Produce, ProduceResp, InitProducerId,
//	    InitProducerIdResp, AddPartitionsToTxn, EndTxn, ...
//	drop [from=p1] [to=b1] [type=ProduceResp] [n=1]
//	    Lose the matching messages; the connection stays up.
//	blackhole [from=p1] [to=b1] [type=ProduceResp] [n=1]
//	    Lose the matching messages as TCP does: the connection breaks,
//	    losing what else is on it, and the client is not told.
//	reject [from=p1] err=UNKNOWN_PRODUCER_ID [n=1]
//	    Deliver the matching Produce requests with a reject armed at the
//	    broker: it answers every batch with err, appending nothing.
//	stabilize
//	    Deliver everything, oldest first, until the network is empty.
//	advance 30s
//	    Move time forward, firing the wake-ups that fall due on the way.
//	disconnect p1 [dest=b1]
//	    Break p1's connection to b1 (or c1) and tell p1 at once: what is
//	    on it is lost.
//	crash NODE
//	    Crash a producer instance, broker or the coordinator (the World's
//	    fault code): what is on its connections is lost.
//	restart NODE [clean]
//	    Restart a crashed node.
//	fault ACTION
//	    Any fault-plan action without its time: pause p1 5s, partition
//	    p1 | b1, heal p1 | b1, drift p1 +200ppm, ... (docs/plans.md).
//	replay p2 from=p1
//	    p2 re-sends p1's records that have no outcome (same ids).
//	net
//	    List the messages in flight.
//	state p1
//	    Print p1's client state.
//	log [part=0]
//	    Print the partitions' logs (every partition when part is absent).
//	check
//	    Judge the run so far: counts (and the transactions' outcomes,
//	    when there were any) and invariant violations.
func (e *Env) Handle(t *testing.T, d *datadriven.TestData) string {
	e.out.Reset()
	if d.Cmd == "broker" {
		for _, a := range d.CmdArgs {
			key := a.Key
			switch key {
			case "window":
				key = "broker.window"
			case "dedup":
				key = "broker.dedup"
			}
			if len(a.Vals) != 1 {
				t.Fatalf("%s: %s needs one value", d.Pos, a.Key)
			}
			if err := e.Configure(params.KV{Key: key, Value: a.Vals[0]}); err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
		}
		return "ok"
	}
	s, err := e.World()
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	var res []string
	fail := func(err error) {
		if err != nil {
			res = append(res, "error: "+err.Error())
		}
	}
	switch d.Cmd {
	case "new-producer":
		res = e.cmdNewProducer(t, d, s)
	case "start":
		fail(s.Start(name(t, d)))
	case "send":
		n := name(t, d)
		part, cnt := 0, 1
		if d.HasArg("part") {
			d.ScanArgs(t, "part", &part)
		}
		if d.HasArg("n") {
			d.ScanArgs(t, "n", &cnt)
		}
		for range cnt {
			if _, err := s.Send(n, int32(part)); err != nil {
				fail(err)
				break
			}
		}
	case "deliver", "drop", "blackhole", "reject":
		ids, code := e.selectArgs(t, d, s)
		if len(ids) == 0 {
			return "no matching message"
		}
		for _, id := range ids {
			var err error
			switch d.Cmd {
			case "drop":
				err = s.Drop(id)
			case "blackhole":
				err = s.Blackhole(id)
			case "reject":
				err = s.Reject(id, code)
			default:
				err = s.Deliver(id)
			}
			if err != nil && !inFlight(s, id) {
				continue // lost with its connection meanwhile
			}
			fail(err)
		}
	case "stabilize":
		if !s.Stabilize(10000) {
			t.Fatalf("%s: network did not stabilize", d.Pos)
		}
	case "advance":
		if len(d.CmdArgs) != 1 {
			t.Fatalf("%s: advance needs a duration", d.Pos)
		}
		dur, err := time.ParseDuration(d.CmdArgs[0].Key)
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		s.Advance(dur)
		res = append(res, "now "+s.Now().String())
	case "disconnect":
		dest := s.BrokerName(0)
		if d.HasArg("dest") {
			d.ScanArgs(t, "dest", &dest)
		}
		fail(s.Disconnect(name(t, d), dest))
	case "crash", "restart", "fault":
		var words []string
		if d.Cmd != "fault" {
			words = append(words, d.Cmd)
		}
		for _, a := range d.CmdArgs {
			words = append(words, a.String())
		}
		fail(s.Fault(strings.Join(words, " ")))
	case "replay":
		var from string
		d.ScanArgs(t, "from", &from)
		fail(s.Replay(name(t, d), from))
	case "net":
		for _, m := range s.InFlight() {
			res = append(res, m.From+"->"+m.To+" "+string(m.Msg.AppendDescription(nil)))
		}
		if len(res) == 0 {
			return "empty"
		}
	case "state":
		p := s.Producer(name(t, d))
		if p == nil {
			t.Fatalf("%s: no producer %q", d.Pos, name(t, d))
		}
		return p.DescribeState()
	case "log":
		for _, p := range s.Partitions() {
			if d.HasArg("part") {
				var part int
				d.ScanArgs(t, "part", &part)
				if int(p.ID) != part {
					continue
				}
			}
			res = append(res, describeLog(p))
		}
	case "check":
		c, v := s.Check()
		res = append(res, fmt.Sprintf("sent=%d acked=%d failed=%d pending=%d appended=%d duplicates=%d reordered=%d lost-acked=%d",
			c.Sent, c.Acked, c.Failed, c.Pending, c.Appended, c.Duplicates, c.Reordered, c.LostAcked))
		if c.TxnCommitted+c.TxnAborted > 0 {
			res = append(res, fmt.Sprintf("transactions: committed=%d aborted=%d; records aborted in the logs: %d", c.TxnCommitted, c.TxnAborted, c.Aborted))
		}
		for _, x := range v {
			res = append(res, x.Invariant+": "+x.Detail)
		}
		if len(v) == 0 {
			res = append(res, "no violations")
		}
	default:
		t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	}
	out := e.out.String()
	for _, r := range res {
		out += r + "\n"
	}
	if out == "" {
		return "ok"
	}
	return out
}

// inFlight reports whether message id is still in flight.
func inFlight(s *world.Script, id uint64) bool {
	for _, m := range s.InFlight() {
		if m.ID == id {
			return true
		}
	}
	return false
}

// selectArgs reads the message filter of deliver, drop, blackhole and
// reject and returns the matching messages, and reject's error.
func (e *Env) selectArgs(t *testing.T, d *datadriven.TestData, s *world.Script) ([]uint64, model.ErrCode) {
	f, cnt := Filter{}, 0
	var code model.ErrCode
	for _, a := range d.CmdArgs {
		if len(a.Vals) != 1 {
			t.Fatalf("%s: %s needs one value", d.Pos, a.Key)
		}
		switch v := a.Vals[0]; a.Key {
		case "from":
			f.From = v
		case "to":
			f.To = v
		case "type":
			f.Type = v
		case "n":
			cnt = atoi(t, v)
		case "err":
			c, ok := model.ParseErrCode(v)
			if !ok {
				t.Fatalf("%s: unknown error %s", d.Pos, v)
			}
			code = c
		default:
			t.Fatalf("%s: unknown argument %s", d.Pos, a.Key)
		}
	}
	if d.Cmd == "reject" {
		if code == model.ErrNone {
			t.Fatalf("%s: reject needs err=", d.Pos)
		}
		f.Type = "Produce"
	}
	return Select(s, f, cnt), code
}

// describeLog returns "p0: 0:a0:0(e0,s0) 1:a1:0": each record at its
// offset, with epoch and sequence when it has a producer id.
func describeLog(p *storage.Partition) string {
	var b strings.Builder
	fmt.Fprintf(&b, "p%d:", p.ID)
	for _, le := range p.Log() {
		for i, r := range le.Batch.Records {
			fmt.Fprintf(&b, " %d:%v", le.FirstOffset+int64(i), r.ID)
			if le.Batch.Idempotent() {
				fmt.Fprintf(&b, "(e%d,s%d)", le.Batch.Epoch, model.SeqSpace{}.Add(le.Batch.FirstSeq, int64(i)))
			}
		}
	}
	return b.String()
}

// name returns the command's first argument, a node name.
func name(t *testing.T, d *datadriven.TestData) string {
	if len(d.CmdArgs) == 0 || len(d.CmdArgs[0].Vals) != 0 {
		t.Fatalf("%s: %s needs a node name first", d.Pos, d.Cmd)
	}
	return d.CmdArgs[0].Key
}

func atoi(t *testing.T, s string) int {
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// cmdNewProducer handles new-producer.
func (e *Env) cmdNewProducer(t *testing.T, d *datadriven.TestData, s *world.Script) []string {
	n := name(t, d)
	app := int32(-1)
	var sets []params.KV
	for _, a := range d.CmdArgs[1:] {
		if len(a.Vals) != 1 {
			t.Fatalf("%s: %s needs one value", d.Pos, a.Key)
		}
		if a.Key == "app" {
			app = int32(atoi(t, a.Vals[0]))
			continue
		}
		sets = append(sets, params.KV{Key: a.Key, Value: a.Vals[0]})
	}
	notes, err := s.AddProducer(n, app, sets)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	var out []string
	for _, note := range notes {
		out = append(out, "note: "+note)
	}
	return out
}
