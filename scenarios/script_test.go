package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// newTestScript returns a scripted world and the builder its trace lines go to.
func newTestScript(t *testing.T, sets ...params.KV) (*world.Script, *strings.Builder) {
	t.Helper()
	var out strings.Builder
	// A send puts its request on the wire at once (linger.ms=0).
	sets = append([]params.KV{{Key: "linger.ms", Value: "0"}}, sets...)
	s, err := world.NewScript(world.ScriptConfig{Seed: 1, Sets: sets, Instances: 4, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	return s, &out
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestScriptBlackhole: a message lost as TCP loses it breaks its
// connection; what else is on it is lost at once, and what is sent on it
// later never leaves.
func TestScriptBlackhole(t *testing.T) {
	s, out := newTestScript(t, params.KV{Key: "enable.idempotence", Value: "false"})
	_, err := s.AddProducer("p1", -1, nil)
	mustOK(t, err)
	mustOK(t, s.Start("p1"))
	for range 2 {
		_, err := s.Send("p1", 0)
		mustOK(t, err)
	}
	fl := s.InFlight()
	if len(fl) != 2 || fl[0].Type() != "Produce" || fl[0].From != "p1" || fl[0].To != "b1" {
		t.Fatalf("in flight: %+v", fl)
	}
	out.Reset()
	mustOK(t, s.Blackhole(fl[0].ID))
	want := "b1 lost-on-wire Produce#1 {p0 pid=none n=1 [a0:0]} lost\n" +
		"b1 lost-on-wire Produce#2 {p0 pid=none n=1 [a0:1]} conn-broken\n"
	if out.String() != want || len(s.InFlight()) != 0 {
		t.Fatalf("blackhole:\n%s\nin flight %d", out, len(s.InFlight()))
	}
	out.Reset()
	_, err = s.Send("p1", 0)
	mustOK(t, err)
	if !strings.Contains(out.String(), "-> b1 DROPPED conn-broken") {
		t.Errorf("a send on the broken connection:\n%s", out)
	}
	// The client learns of it at request.timeout.ms, retries, and all
	// three land (newest first: Kafka re-enqueues failed batches at the
	// front without idempotence, RecordAccumulator.reenqueue).
	s.Advance(31e9)
	if !s.Stabilize(100) || s.Pending() != 0 {
		t.Fatalf("pending %d\n%s", s.Pending(), out)
	}
	c, v := s.Check()
	if c.Acked != 3 || c.Appended != 3 || c.Reordered != 2 || len(v) != 2 || v[0].Invariant != "INV-ORDER" {
		t.Errorf("counts %+v, violations %v", c, v)
	}
}

// TestScriptInstancesJoinLate: an instance added after others ran is named
// in the trace and by the checker.
func TestScriptInstancesJoinLate(t *testing.T) {
	s, out := newTestScript(t, params.KV{Key: "partitions", Value: "2"}, params.KV{Key: "brokers", Value: "2"})
	_, err := s.AddProducer("first", -1, []params.KV{{Key: "client.policy", Value: "librdkafka"}})
	mustOK(t, err)
	mustOK(t, s.Start("first"))
	s.Stabilize(10)
	_, err = s.Send("first", 1)
	mustOK(t, err)
	if fl := s.InFlight(); len(fl) != 1 || fl[0].To != "b2" {
		t.Fatalf("partition 1 is led by b2: %+v", fl)
	}
	s.Stabilize(10)
	_, err = s.AddProducer("late", 0, nil)
	mustOK(t, err)
	mustOK(t, s.Start("late"))
	s.Stabilize(10)
	if !strings.Contains(out.String(), "late takes over app 0") || !strings.Contains(out.String(), "late producer id 1001 epoch 0") {
		t.Errorf("trace:\n%s", out)
	}
	if _, v := s.Check(); len(v) != 0 {
		t.Errorf("violations %v", v)
	}
}

// TestScriptErrors: what a script cannot do is an error naming why.
func TestScriptErrors(t *testing.T) {
	if _, err := world.NewScript(world.ScriptConfig{Sets: []params.KV{{Key: "net.response_loss", Value: "0.1"}}}); err == nil || !strings.Contains(err.Error(), "the script decides") {
		t.Errorf("net.response_loss: %v", err)
	}
	if _, err := world.NewScript(world.ScriptConfig{Sets: []params.KV{{Key: "records", Value: "5"}}}); err == nil {
		t.Error("records: no error")
	}
	s, _ := newTestScript(t)
	for _, c := range []struct {
		name string
		app  int32
		sets []params.KV
		want string
	}{
		{"b1", -1, nil, "exists already"},
		{"1p", -1, nil, "instance name"},
		{"p1", 3, nil, "no application 3"},
		{"p1", -1, []params.KV{{Key: "partitions", Value: "2"}}, "not a producer parameter"},
		{"p1", -1, []params.KV{{Key: "acks", Value: "1"}, {Key: "enable.idempotence", Value: "true"}}, "conflicts with acks=1"},
	} {
		if _, err := s.AddProducer(c.name, c.app, c.sets); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddProducer(%s, %d, %v): %v, want %q", c.name, c.app, c.sets, err, c.want)
		}
	}
	for i := range 4 {
		_, err := s.AddProducer("q"+string(rune('a'+i)), -1, nil)
		mustOK(t, err)
	}
	if _, err := s.AddProducer("q9", -1, nil); err == nil || !strings.Contains(err.Error(), "no room") {
		t.Errorf("a fifth instance: %v", err)
	}
	if _, err := s.Send("qa", 0); err == nil || !strings.Contains(err.Error(), "not started") {
		t.Errorf("send before start: %v", err)
	}
	mustOK(t, s.Start("qa"))
	if err := s.Disconnect("qa", "b1"); err == nil || !strings.Contains(err.Error(), "no connection") {
		t.Errorf("disconnect: %v", err)
	}
	if err := s.Fault("crash ~1"); err == nil {
		t.Error("a free slot can be named in a plan action")
	}
	if err := s.Fault("crash zz"); err == nil || !strings.Contains(err.Error(), `unknown node "zz"`) {
		t.Errorf("crash zz: %v", err)
	}
	mustOK(t, s.Fault("crash qa"))
	if _, err := s.Send("qa", 0); err == nil || !strings.Contains(err.Error(), "crashed") {
		t.Errorf("send to a crashed instance: %v", err)
	}
	if err := s.Reject(12345, model.ErrNotLeaderOrFollower); err == nil {
		t.Error("reject of no message: no error")
	}
}
