package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

func TestLevelsOrder(t *testing.T) {
	var got []string
	for _, l := range params.Levels() {
		got = append(got, l.String())
	}
	want := []string{"default", "profile", "scenario", "preset", "file", "-bug", "-set"}
	if !slices.Equal(got, want) {
		t.Fatalf("levels %v, want %v", got, want)
	}
}

// TestPrecedence: each level overrides the ones below it, once, and
// Values records which level each value came from.
func TestPrecedence(t *testing.T) {
	sc, _ := Lookup("seqreuse") // scenario defaults: records=40, batch.size=1, ...
	spec := Spec{Scenario: sc,
		FileSets: kv("records", "5", "producer.bug.metaflap_reset", "false", "linger.ms", "3", "partitions", "2"),
		Bugs:     []string{"Z11", "Z13"}, // Z13: client.policy=librdkafka
		Sets:     kv("enable.idempotence", "true", "records", "7", "client.policy", "java", "records", "8"),
	}
	res, err := Resolve(spec)
	if err != nil {
		t.Fatal(err)
	}
	v := res.Values
	for _, c := range []struct {
		key, val, src string
		explicit      bool
	}{
		{"acks", "all", "default", false},
		{"batch.size", "1", "scenario", false},
		{"linger.ms", "3", "file", true},
		{"partitions", "2", "file", true},
		{"producer.bug.metaflap_reset", "true", "-bug Z11", true}, // -bug beats the file
		{"client.policy", "java", "-set", true},                   // -set beats -bug
		{"records", "8", "-set", true},                            // the last -set wins
		{"enable.idempotence", "true", "-set", true},
	} {
		if got := v.Get(c.key); got != c.val {
			t.Errorf("%s = %s, want %s", c.key, got, c.val)
		}
		if got := v.Source(c.key).String(); got != c.src {
			t.Errorf("%s from %s, want %s", c.key, got, c.src)
		}
		if got := v.Explicit(c.key); got != c.explicit {
			t.Errorf("%s explicit %v, want %v", c.key, got, c.explicit)
		}
	}
	if v.OwnDefault("records") != "20" || v.Params()[slices.IndexFunc(v.Params(), func(p params.Param) bool { return p.Key == "records" })].Default != "40" {
		t.Errorf("records: own default %s", v.OwnDefault("records"))
	}
	c := res.Config
	if c.App.Records != 8 || !c.Producer.BugMetaflapReset || c.Producer.Policy.String() != "java" || c.Partitions != 2 {
		t.Errorf("config %+v", c)
	}
}

func TestResolveUnknownBug(t *testing.T) {
	sc, _ := Lookup("ackloss")
	if _, err := Resolve(Spec{Scenario: sc, Bugs: []string{"Z99"}}); err == nil || !strings.HasPrefix(err.Error(), `unknown bug "Z99" `) || !strings.Contains(err.Error(), "(known: K19367, ") {
		t.Fatalf("error %v", err)
	}
}

// TestBugsReported: -bug IDs are a list in the result, and the reproduce
// command turns them on with -bug, not with their settings.
func TestBugsReported(t *testing.T) {
	sc, _ := Lookup("seqreuse")
	r := mustRun(t, Spec{Scenario: sc, Seed: 1, Bugs: []string{"Z11"}, Sets: idem(true)})
	if !slices.Equal(r.Bugs, []string{"Z11"}) {
		t.Errorf("bugs %v", r.Bugs)
	}
	if want := "go run ./cmd/simulate -seed 1 -scenario seqreuse -bug Z11 -idempotence=true"; r.Reproduce != want {
		t.Errorf("reproduce %q, want %q", r.Reproduce, want)
	}
	if slices.ContainsFunc(r.Params, func(kv params.KV) bool { return strings.HasPrefix(kv.Key, "-") }) {
		t.Errorf("params hold a flag: %v", r.Params)
	}
	if r := mustRun(t, Spec{Scenario: sc, Seed: 1}); r.Bugs == nil || len(r.Bugs) != 0 {
		t.Errorf("no bugs: %#v, want an empty list", r.Bugs)
	}
}

// TestReproduceScenarioFile: a scenario file's values are in the file, so
// the reproduce command does not repeat them.
func TestReproduceScenarioFile(t *testing.T) {
	fs, err := ParseScenarioFile("my study.yaml", []byte("name: study\nbase: ackloss\nparams:\n  records: 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Scenario: fs.Scenario, Seed: 3, FileSets: fs.Sets, Bugs: []string{"Z16"}, Sets: kv("net.response_loss", "0.5"),
		ScenarioFile: "my study.yaml", PlanSource: world.PlanSource{File: "p.plan"}, PlanText: "1s pause p1 1s\n"}
	want := "go run ./cmd/simulate -seed 3 -scenario-file 'my study.yaml' -bug Z16 -set net.response_loss=0.5 -plan-file p.plan"
	if got := spec.reproduce(); got != want {
		t.Errorf("reproduce\n got %s\nwant %s", got, want)
	}
}
