package simtest

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/idemsim/idemsim/model"
)

// Handle runs one datadriven command and returns its output. The commands:
//
//	broker partitions=2 [window=5] [dedup=false]
//	    Create the broker (default: one partition, Kafka's rules).
//	new-producer p1 [app=0] [enable.idempotence=false] [acks=1] [retries=3]
//	    [max.in.flight.requests.per.connection=5] [max.in.flight.above.five=true]
//	    [delivery.timeout.ms=120000] [request.timeout.ms=30000]
//	    [retry.backoff.ms=100] [retry.backoff.max.ms=1000] [linger.ms=0]
//	    [batch.size=16] [transactional.id=t1] [client.policy=librdkafka]
//	    Create a producer instance (for application app; default: a new
//	    application) with Kafka's defaults and these settings; prints the
//	    configuration notes or error.
//	start p1
//	    Start the instance (an idempotent one sends InitProducerId).
//	send p1 [part=0] [n=1]
//	    The application sends n new records to partition part.
//	deliver [from=p1] [to=b0] [type=Produce] [n=1]
//	    Deliver the matching messages in flight (all when n is absent),
//	    oldest first. Types: Produce, ProduceResp, InitProducerId,
//	    InitProducerIdResp.
//	drop [from=p1] [to=b0] [type=ProduceResp] [n=1]
//	    Lose the matching messages; the connection stays up.
//	reject [from=p1] err=UNKNOWN_PRODUCER_ID [n=1]
//	    The broker answers the matching Produce requests with err for
//	    every batch, appending nothing.
//	stabilize
//	    Deliver everything, oldest first, until the network is empty.
//	advance 30s
//	    Move time forward, firing the producers' wake-ups on the way.
//	disconnect p1 [dest=b0]
//	    Break p1's connection to b0 (or coord): what is on it is lost.
//	crash p1
//	    Stop p1; its requests in flight can still arrive.
//	replay p2 from=p1
//	    p2 re-sends p1's records that have no outcome (same ids).
//	net
//	    List the messages in flight.
//	state p1
//	    Print p1's client state.
//	log [part=0]
//	    Print the broker's log (every partition when part is absent).
//	check
//	    Judge the run: counts and invariant violations.
func (e *Env) Handle(t *testing.T, d *datadriven.TestData) string {
	e.Out.Reset()
	switch d.Cmd {
	case "broker":
		parts, cfg := 1, model.PartitionConfig{}
		for _, a := range d.CmdArgs {
			switch a.Key {
			case "partitions":
				parts = atoi(t, a.Vals[0])
			case "window":
				cfg.Window = atoi(t, a.Vals[0])
			case "dedup":
				cfg.NoDedup = a.Vals[0] == "false"
			default:
				t.Fatalf("%s: unknown argument %s", d.Pos, a.Key)
			}
		}
		e.NewBroker(parts, cfg)
		return "ok"
	case "new-producer":
		return e.cmdNewProducer(t, d)
	case "start":
		e.Start(e.node(t, d))
	case "send":
		n := e.node(t, d)
		part, cnt := 0, 1
		if d.HasArg("part") {
			d.ScanArgs(t, "part", &part)
		}
		if d.HasArg("n") {
			d.ScanArgs(t, "n", &cnt)
		}
		for range cnt {
			e.Send(n, int32(part))
		}
	case "deliver", "drop", "reject":
		f, cnt := Filter{}, 0
		var code model.ErrCode
		for _, a := range d.CmdArgs {
			switch a.Key {
			case "from":
				f.From = a.Vals[0]
			case "to":
				f.To = a.Vals[0]
			case "type":
				f.Type = a.Vals[0]
			case "n":
				cnt = atoi(t, a.Vals[0])
			case "err":
				c, ok := model.ParseErrCode(a.Vals[0])
				if !ok {
					t.Fatalf("%s: unknown error %s", d.Pos, a.Vals[0])
				}
				code = c
			default:
				t.Fatalf("%s: unknown argument %s", d.Pos, a.Key)
			}
		}
		if d.Cmd == "reject" {
			f.Type = "Produce"
		}
		ms := e.Select(f, cnt)
		if len(ms) == 0 {
			return "no matching message"
		}
		for _, m := range ms {
			switch d.Cmd {
			case "drop":
				e.Drop(m)
			case "reject":
				e.Reject(m, code)
			default:
				e.Deliver(m)
			}
		}
	case "stabilize":
		if !e.Stabilize(10000) {
			t.Fatalf("%s: network did not stabilize", d.Pos)
		}
	case "advance":
		dur, err := time.ParseDuration(d.CmdArgs[0].Key)
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		e.Advance(e.Now.Add(dur))
		e.printf("now %v\n", e.Now)
	case "disconnect":
		n := e.node(t, d)
		dest := int32(0)
		if d.HasArg("dest") {
			var s string
			d.ScanArgs(t, "dest", &s)
			if s == CoordName {
				dest = model.DestCoordinator
			}
		}
		e.Disconnect(n, dest)
	case "crash":
		e.Crash(e.node(t, d))
	case "replay":
		n := e.node(t, d)
		var from string
		d.ScanArgs(t, "from", &from)
		e.Replay(n, e.Node(from))
	case "net":
		if len(e.Net) == 0 {
			return "empty"
		}
		for _, m := range e.Net {
			e.printf("%s\n", m.Describe())
		}
	case "state":
		return e.node(t, d).P.DescribeState()
	case "log":
		for _, p := range e.Broker.Partitions() {
			if d.HasArg("part") {
				var part int
				d.ScanArgs(t, "part", &part)
				if int(p.ID) != part {
					continue
				}
			}
			e.printf("p%d:", p.ID)
			for _, le := range p.Log() {
				for i, r := range le.Batch.Records {
					e.printf(" %d:%v", le.FirstOffset+int64(i), r.ID)
					if le.Batch.Idempotent() {
						e.printf("(e%d,s%d)", le.Batch.Epoch, model.SeqSpace{}.Add(le.Batch.FirstSeq, int64(i)))
					}
				}
			}
			e.printf("\n")
		}
	case "check":
		c, v := e.Check()
		e.printf("sent=%d acked=%d failed=%d pending=%d appended=%d duplicates=%d reordered=%d lost-acked=%d\n",
			c.Sent, c.Acked, c.Failed, c.Pending, c.Appended, c.Duplicates, c.Reordered, c.LostAcked)
		for _, x := range v {
			e.printf("%s: %s\n", x.Invariant, x.Detail)
		}
		if len(v) == 0 {
			e.printf("no violations\n")
		}
	default:
		t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	}
	s := e.Out.String()
	if s == "" {
		return "ok"
	}
	return s
}

func (e *Env) node(t *testing.T, d *datadriven.TestData) *Node {
	if len(d.CmdArgs) == 0 {
		t.Fatalf("%s: %s needs a producer name", d.Pos, d.Cmd)
	}
	n := e.Node(d.CmdArgs[0].Key)
	if n == nil {
		t.Fatalf("%s: no producer %q", d.Pos, d.CmdArgs[0].Key)
	}
	return n
}

func atoi(t *testing.T, s string) int {
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// cmdNewProducer handles new-producer.
func (e *Env) cmdNewProducer(t *testing.T, d *datadriven.TestData) string {
	name := d.CmdArgs[0].Key
	cfg, app, err := ParseProducerConfig(d.CmdArgs[1:])
	if err != nil {
		return "error: " + err.Error()
	}
	eff, notes, err := cfg.Resolve()
	if err != nil {
		return "error: " + err.Error()
	}
	e.NewProducer(name, app, eff)
	for _, n := range notes {
		e.printf("note: %s\n", n)
	}
	if e.Out.Len() == 0 {
		return "ok"
	}
	return e.Out.String()
}

// ParseProducerConfig builds a configuration from Kafka-named key=value
// arguments on top of Kafka's defaults; "app" selects the application.
func ParseProducerConfig(args []datadriven.CmdArg) (model.ProducerConfig, int32, error) {
	c := model.DefaultProducerConfig()
	app := int32(-1)
	for _, a := range args {
		if len(a.Vals) != 1 {
			return c, app, fmt.Errorf("%s needs one value", a.Key)
		}
		v := a.Vals[0]
		ms := func() (time.Duration, error) {
			n, err := strconv.ParseInt(v, 10, 64)
			return time.Duration(n) * time.Millisecond, err
		}
		var err error
		var n int64
		switch a.Key {
		case "app":
			n, err = strconv.ParseInt(v, 10, 32)
			app = int32(n)
		case "enable.idempotence":
			c.EnableIdempotence, err = strconv.ParseBool(v)
			c.IdempotenceExplicit = true
		case "acks":
			if v == "all" {
				v = "-1"
			}
			n, err = strconv.ParseInt(v, 10, 8)
			c.Acks = int8(n)
		case "retries":
			n, err = strconv.ParseInt(v, 10, 32)
			c.Retries = int32(n)
			if v == "max" {
				c.Retries, err = math.MaxInt32, nil
			}
		case "max.in.flight.requests.per.connection":
			n, err = strconv.ParseInt(v, 10, 32)
			c.MaxInFlight = int(n)
		case "max.in.flight.above.five":
			c.AllowInFlightAboveFive, err = strconv.ParseBool(v)
		case "delivery.timeout.ms":
			c.DeliveryTimeout, err = ms()
			c.DeliveryTimeoutExplicit = true
		case "request.timeout.ms":
			c.RequestTimeout, err = ms()
		case "retry.backoff.ms":
			c.RetryBackoff, err = ms()
		case "retry.backoff.max.ms":
			c.RetryBackoffMax, err = ms()
		case "linger.ms":
			c.Linger, err = ms()
		case "batch.size":
			n, err = strconv.ParseInt(v, 10, 32)
			c.BatchSize = int(n)
		case "transactional.id":
			c.TransactionalID = v
		case "client.policy":
			switch v {
			case "java":
				c.Policy = model.PolicyJava
			case "librdkafka":
				c.Policy = model.PolicyLibrdkafka
			default:
				err = fmt.Errorf("unknown client.policy %q", v)
			}
		default:
			err = fmt.Errorf("unknown setting %s", a.Key)
		}
		if err != nil {
			return c, app, fmt.Errorf("%s=%s: %w", a.Key, v, err)
		}
	}
	return c, app, nil
}
