package explore

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/world"
)

// TestFullLengths: the full menu's lengths are fault.max_duration and a
// tenth below and above request.timeout.ms, and a tenth above
// transaction.timeout.ms for a transactional producer, sorted, each once.
func TestFullLengths(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		max, req, txn time.Duration
		want          []time.Duration
	}{
		{10 * s, 30 * s, 0, []time.Duration{10 * s, 27 * s, 33 * s}},
		{10 * s, 30 * s, 60 * s, []time.Duration{10 * s, 27 * s, 33 * s, 66 * s}},
		{10 * s, 1 * s, 0, []time.Duration{900 * time.Millisecond, 1100 * time.Millisecond, 10 * s}},
		{27 * s, 30 * s, 0, []time.Duration{27 * s, 33 * s}},
	} {
		if got := fullLengths(c.max, c.req, c.txn); !slices.Equal(got, c.want) {
			t.Errorf("fullLengths(%v, %v, %v) = %v, want %v", c.max, c.req, c.txn, got, c.want)
		}
	}
}

// TestFullMenuOptions: at a time point the full menu offers, per node
// up, a crash per length (a broker's clean and unclean), a pause per
// length, a stall per length for a server only, and both drifts; every
// option's plan lines parse, pass the plan's sequence checks and format
// back to the same text. fault.kinds switches kinds off.
func TestFullMenuOptions(t *testing.T) {
	c := cfgFor(t, "zombie", 1)
	c.FullMenu = true
	s, err := prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	L := len(s.menu.Lengths)
	if L != 4 || !s.menu.Stall || !s.menu.Drift || !s.menu.Clean {
		t.Fatalf("zombie's full menu: %s", s.menu)
	}
	p := point{kind: world.ChoiceTime, at: 2e9, up: []string{"p1", "b1", "c1"}, roles: []world.Role{world.RoleProducer, world.RoleBroker, world.RoleCoordinator}}
	opts := s.options(&p, nil)
	count := func(node string, k faultKind, clean bool) int {
		n := 0
		for _, f := range opts {
			if f.node == node && f.kind == k && f.clean == clean {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		node                              string
		crash, clean, pause, stall, drift int
	}{
		{"p1", L, 0, L, 0, 2},
		{"b1", L, L, L, L, 2},
		{"c1", L, 0, L, L, 2},
	} {
		got := [5]int{count(c.node, fCrash, false), count(c.node, fCrash, true), count(c.node, fPause, false), count(c.node, fStall, false), count(c.node, fDrift, false)}
		if want := [5]int{c.crash, c.clean, c.pause, c.stall, c.drift}; got != want {
			t.Errorf("%s: crash, clean crash, pause, stall, drift = %v, want %v", c.node, got, want)
		}
	}
	for _, f := range opts {
		text := s.plan(&sched{parent: &sched{}, f: f, depth: 1})
		plan, err := faults.Parse(text)
		if err != nil {
			t.Fatalf("option %+v: %v\n%s", f, err, text)
		}
		if err := plan.CheckSequence(); err != nil {
			t.Fatalf("option %+v: %v\n%s", f, err, text)
		}
		if got := plan.String(); got != text {
			t.Errorf("option %+v: plan formats back as\n%s\nwant\n%s", f, got, text)
		}
	}

	// fault.kinds=pause,drop: pauses at every length, nothing else at a
	// time point.
	c2 := cfgFor(t, "zombie", 1, "fault.kinds=pause,drop")
	c2.FullMenu = true
	s2, err := prepare(c2)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s2.options(&p, nil) {
		if f.kind != fPause {
			t.Errorf("fault.kinds=pause,drop offers %+v", f)
		}
	}
	if got := len(s2.options(&p, nil)); got != 3*L {
		t.Errorf("fault.kinds=pause,drop: %d options at a time point, want %d", got, 3*L)
	}
	if strings.Contains(s2.menu.String(), "stall") || !strings.HasPrefix(s2.menu.String(), "full: ") {
		t.Errorf("menu %q", s2.menu)
	}
}

// TestFullMenuExplores: a full-menu exploration runs every option (more
// schedules than the basic menu's), names its menu, and finds what the
// basic one finds.
func TestFullMenuExplores(t *testing.T) {
	basic := explore(t, cfgFor(t, "ackloss", 1, "enable.idempotence=false", "records=2"))
	c := cfgFor(t, "ackloss", 1, "enable.idempotence=false", "records=2")
	c.FullMenu = true
	full := explore(t, c)
	if full.Schedules <= basic.Schedules {
		t.Errorf("full menu ran %d schedules, basic %d", full.Schedules, basic.Schedules)
	}
	if !strings.HasPrefix(full.Menu, "full: ") || strings.HasPrefix(basic.Menu, "full") {
		t.Errorf("menus: basic %q, full %q", basic.Menu, full.Menu)
	}
	for _, v := range basic.Invariants {
		i := slices.IndexFunc(full.Invariants, func(w Verdict) bool { return w.Name == v.Name })
		if i < 0 || !v.Holds && full.Invariants[i].Holds {
			t.Errorf("%s: basic menu %+v, full %+v", v.Name, v, full.Invariants)
		}
	}
}

// TestConsumerNotOnMenu: a scenario with a consumer (lsolag's r1)
// explores without an error: the consumer, which a fault plan cannot
// name, is not offered, on either menu.
func TestConsumerNotOnMenu(t *testing.T) {
	for _, full := range []bool{false, true} {
		c := cfgFor(t, "lsolag", 1)
		c.Budget, c.FullMenu = 60, full
		r, err := Run(context.Background(), c)
		if err != nil {
			t.Fatalf("full menu %v: %v", full, err)
		}
		if r.Schedules == 0 {
			t.Fatalf("full menu %v: no schedule ran", full)
		}
	}
}

// TestShutdownOnMenu: a broker's controlled shutdown is on the menu only
// when fault.kinds names it and the world is replicated; it is offered
// for brokers alone, and its plan line parses and passes the checks.
func TestShutdownOnMenu(t *testing.T) {
	menu := func(sets ...string) *setup {
		s, err := prepare(cfgFor(t, "zombie", 1, sets...))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if menu("brokers=3").menu.Shutdown || menu("fault.kinds=shutdown,crash").menu.Shutdown {
		t.Fatal("shutdown on the menu with fault.kinds=all or without replication")
	}
	s := menu("brokers=3", "fault.kinds=shutdown,crash")
	if !s.menu.Shutdown || !strings.Contains(s.menu.String(), "shutdown (") {
		t.Fatalf("menu %q", s.menu)
	}
	p := point{kind: world.ChoiceTime, at: 2e9, up: []string{"p1", "b1", "c1"}, roles: []world.Role{world.RoleProducer, world.RoleBroker, world.RoleCoordinator}}
	n := 0
	for _, f := range s.options(&p, nil) {
		if f.kind != fShutdown {
			continue
		}
		n++
		text := s.plan(&sched{parent: &sched{}, f: f, depth: 1})
		plan, err := faults.Parse(text)
		if err != nil || plan.CheckSequence() != nil || plan.String() != text || f.node != "b1" {
			t.Fatalf("option %+v: %v\n%s", f, err, text)
		}
	}
	if n != 1 {
		t.Fatalf("%d shutdown options, want 1 (b1)", n)
	}
}

// TestOperatorActionsOnMenu: elect-preferred and reassign are on the menu
// only when fault.kinds names them and the world is replicated; each is
// offered once at a time choice point, and its plan line parses and
// passes the checks.
func TestOperatorActionsOnMenu(t *testing.T) {
	menu := func(sets ...string) *setup {
		s, err := prepare(cfgFor(t, "zombie", 1, sets...))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if m := menu("brokers=3").menu; m.Elect || m.Reassign != nil {
		t.Fatal("operator actions on the menu with fault.kinds=all")
	}
	if m := menu("fault.kinds=elect-preferred,reassign").menu; m.Elect || m.Reassign != nil {
		t.Fatal("operator actions on the menu without replication")
	}
	s := menu("brokers=4", "replication.factor=3", "fault.kinds=elect-preferred,reassign")
	if got := s.menu.String(); !strings.Contains(got, "elect-preferred, reassign p0 b2,b3,b4") {
		t.Fatalf("menu %q", got)
	}
	p := point{kind: world.ChoiceTime, at: 2e9, up: []string{"p1", "b1", "c1"}, roles: []world.Role{world.RoleProducer, world.RoleBroker, world.RoleCoordinator}}
	seen := map[faultKind]int{}
	for _, f := range s.options(&p, nil) {
		seen[f.kind]++
		text := s.plan(&sched{parent: &sched{}, f: f, depth: 1})
		plan, err := faults.Parse(text)
		if err != nil || plan.CheckSequence() != nil || plan.String() != text {
			t.Fatalf("option %+v: %v\n%s", f, err, text)
		}
	}
	if seen[fElect] != 1 || seen[fReassign] != 1 || len(seen) != 2 {
		t.Fatalf("options %v, want one election and one reassignment", seen)
	}
}

// TestExploreReplicated: an exploration of a replicated world replays
// each schedule's faults at the choice points they were chosen at (the
// world carries no idle replication span under a probe), here with a
// preferred-leader election on the menu.
func TestExploreReplicated(t *testing.T) {
	r := explore(t, cfgFor(t, "ackloss", 1, "brokers=4", "fault.kinds=elect-preferred"))
	if r.Schedules < 2 {
		t.Fatalf("%d schedules", r.Schedules)
	}
}
