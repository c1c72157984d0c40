package scenarios

import (
	"reflect"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

// worldFields classifies every field of the World for the state hash
// (statehash.go): hashed, or left out and why. A field added to the World
// must be classified here, so that a new piece of state cannot slip past
// the hash (a wrong prune hides bugs).
var worldFields = map[string]string{
	"spareMem": "storage of the spares' lists: nothing of the run", "spareNext": "which of the two stores spareNodes fills next",
	"textBuf": "scratch for the result's texts", "finalLog": "scratch (finalLogs)", "finalRecs": "scratch (finalLogs)", "nodesBuf": "storage of the plan's node lists, which the plan (hashed) holds",
	"resultMem": "a recycled Result's memory for the run's result (Runner.Recycle): nothing of the run",
	"setup":     "constant", "mode": "constant (chosen once: a run or a script)", "vals": "constant", "cfg": "constant", "groupApp": "constant (from cfg and mode)", "seed": "constant",
	"loop": "hashed: the time, the pending events in order",
	"nw":   "hashed",
	"topo": "constant", "input": "constant",
	"nodes": "hashed", "names": "constant", "brokerNode": "constant", "coordNode": "constant", "dests": "constant",
	"connRows": "storage of the nodes' out rows, hashed through the nodes",
	"rands":    "the generators are hashed where the nodes hold them",
	"spare":    "the previous run's nodes, for reuse: nothing refers to them",
	"coord":    "hashed as a node", "kindNode": "constant",
	"pcfg": "constant", "cfgNotes": "constant",
	"apps": "hashed", "instances": "hashed",
	"msgs":      "hashed through the events that deliver them",
	"nextMsg":   "an id",
	"routes":    "hashed, by renumbered handle",
	"nextRoute": "an id",
	"srvConns":  "hashed", "srvFree": "spare storage for reuse: nothing refers to it",
	"effs": "scratch (depth 0 between events)",
	"obs":  "readers", "cur": "scratch", "trace": "report only", "stats": "report only",
	"chk":      "hashed",
	"plan":     "hashed through the pending fault events",
	"planEnd":  "hashed",
	"reqCount": "hashed",
	"drops":    "hashed (unused rules)",
	"ended":    "hashed", "resend": "hashed",
	"limit": "hashed", "beyond": "hashed", "maxState": "constant", "overState": "hashed",
	"realized": "report only", "readers": "report only", "bumps": "report only (a counter reader)",
	"starts":  "empty once the run starts: the start events are then on the loop, which is hashed",
	"mf":      "hashed: delays, dups and held (prearmed only matters at 0s)",
	"probe":   "the explorer's hook",
	"script":  "nil in a run",
	"repl":    "hashed: the controller as a node, the replication messages on the wire",
	"txnHost": "hashed (replicated runs): the coordinator's host and its pending move",
}

func TestStateHashCoversWorld(t *testing.T) {
	wt := reflect.TypeFor[world.World]()
	var names []string
	for i := range wt.NumField() {
		f := wt.Field(i).Name
		names = append(names, f)
		if _, ok := worldFields[f]; !ok {
			t.Errorf("World.%s is not classified for the state hash: hash it in statehash.go, or say why not in worldFields", f)
		}
	}
	for f := range worldFields {
		if !slices.Contains(names, f) {
			t.Errorf("worldFields names World.%s, which does not exist", f)
		}
	}
}

// hashProbe records the state hash at every time choice point.
type hashProbe struct {
	hashes []world.StateHash
	at     []sim.Time
	sends  int
}

func (p *hashProbe) Choice(cp *world.ChoicePoint) {
	if cp.Kind == world.ChoiceTime {
		p.hashes = append(p.hashes, cp.StateHash())
		p.at = append(p.at, cp.At)
		return
	}
	p.sends++
}

func probeRun(t *testing.T, scenario, plan string, sets ...params.KV) (*Result, *hashProbe) {
	t.Helper()
	sc, err := Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	p := &hashProbe{}
	sets = append([]params.KV{{Key: "records", Value: "3"}, {Key: "net.latency", Value: "constant"}, {Key: "net.response_loss", Value: "0"}, {Key: "broker.transient_error", Value: "0"}}, sets...)
	r, err := Run(Spec{Scenario: sc, Seed: 1, Sets: sets, PlanText: plan, Probe: p})
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

// TestStateHash: a probe changes nothing in the run; hashes are
// deterministic; a fault changes the state hash from its time on, and a
// fault after a time point leaves the hashes before it alone.
func TestStateHash(t *testing.T) {
	sc, _ := Lookup("ackloss")
	plain, err := Run(Spec{Scenario: sc, Seed: 1, Sets: []params.KV{{Key: "records", Value: "3"}, {Key: "net.latency", Value: "constant"}, {Key: "net.response_loss", Value: "0"}}, PlanText: "end 2m"})
	if err != nil {
		t.Fatal(err)
	}
	r1, p1 := probeRun(t, "ackloss", "end 2m")
	_, p2 := probeRun(t, "ackloss", "end 2m")
	if r1.TraceHash != plain.TraceHash {
		t.Errorf("a probe changed the run: %s, want %s", r1.TraceHash, plain.TraceHash)
	}
	if len(p1.hashes) < 5 || !slices.Equal(p1.hashes, p2.hashes) {
		t.Fatalf("hashes: %d, equal on a rerun: %v", len(p1.hashes), slices.Equal(p1.hashes, p2.hashes))
	}
	seen := map[world.StateHash]bool{}
	for _, h := range p1.hashes {
		if seen[h] {
			t.Errorf("a fault-free run repeats a state hash")
		}
		seen[h] = true
	}
	// A drop is state from the start (an armed rule), and what it
	// changes stays different.
	_, p3 := probeRun(t, "ackloss", "0s drop response 2 p1>b1\nend 2m")
	if p3.hashes[0] == p1.hashes[0] || p3.hashes[len(p3.hashes)-1] == p1.hashes[len(p1.hashes)-1] {
		t.Errorf("a drop does not change the state hash")
	}
}

// TestStateHashIgnoresIDs: two plans that lose the same two messages in
// different ways reach the same state (message ids and used drop rules
// aside) once both messages are gone.
func TestStateHashIgnoresIDs(t *testing.T) {
	// Datagram mode, two records sent at once: dropping requests 2 and 3
	// armed in either order loses the same messages; once both rules are
	// used, the states are the same although the surviving messages got
	// other ids.
	sets := []params.KV{{Key: "net.mode", Value: "datagram"}, {Key: "send.interval.ms", Value: "0"}}
	_, pa := probeRun(t, "ackloss", "0s drop request 2 p1>b1\n0s drop request 3 p1>b1\nend 2m", sets...)
	_, pb := probeRun(t, "ackloss", "0s drop request 3 p1>b1\n0s drop request 2 p1>b1\nend 2m", sets...)
	if len(pa.hashes) != len(pb.hashes) || pa.hashes[0] == pb.hashes[0] {
		t.Fatalf("rules armed in another order: %d and %d time points, first hashes equal: %v", len(pa.hashes), len(pb.hashes), pa.hashes[0] == pb.hashes[0])
	}
	if !slices.Equal(pa.hashes[2:], pb.hashes[2:]) {
		t.Errorf("the same losses give other hashes once both drops fired")
	}
}

// TestStateHashTopicInput: with app.input=topic the hashes are
// deterministic, and they cover the input topic (an aborted transaction
// written first changes the state from the start) and the consumers.
func TestStateHashTopicInput(t *testing.T) {
	sets := []params.KV{{Key: "app.input", Value: "topic"}, {Key: "records", Value: "3"}}
	_, p1 := probeRun(t, "ackloss", "end 2m", sets...)
	_, p2 := probeRun(t, "ackloss", "end 2m", sets...)
	if len(p1.hashes) < 5 || !slices.Equal(p1.hashes, p2.hashes) {
		t.Fatalf("hashes: %d, equal on a rerun: %v", len(p1.hashes), slices.Equal(p1.hashes, p2.hashes))
	}
	_, p3 := probeRun(t, "ackloss", "end 2m", append(sets, params.KV{Key: "input.aborted", Value: "2"})...)
	if p3.hashes[0] == p1.hashes[0] {
		t.Errorf("the input topic's contents are not in the state hash")
	}
	_, syn := probeRun(t, "ackloss", "end 2m", sets[1])
	if syn.hashes[0] == p1.hashes[0] {
		t.Errorf("the consumers and the input topic are not in the state hash")
	}
}
