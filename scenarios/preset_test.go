package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

// TestPresetKafkaDefaults: -preset kafka-defaults puts Kafka's own
// timeouts, linger and backoffs back at level preset, below a -set; an
// unknown preset is refused; the reproduce command carries the preset.
func TestPresetKafkaDefaults(t *testing.T) {
	sc, err := Lookup("txntimeout")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Resolve(Spec{Scenario: sc, Preset: "kafka-defaults", Sets: []params.KV{{Key: "linger.ms", Value: "5"}}})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Values
	for key, want := range map[string]string{"transaction.timeout.ms": "60000", "request.timeout.ms": "30000",
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": "10000", "linger.ms": "5", "records": "40"} {
		if got := v.Get(key); got != want {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
	if s := v.Source("request.timeout.ms"); s.Level != params.LevelPreset {
		t.Errorf("request.timeout.ms from %s", s)
	}
	if _, err := Resolve(Spec{Scenario: sc, Preset: "nope"}); err == nil || !strings.Contains(err.Error(), "kafka-defaults") {
		t.Errorf("unknown preset: %v", err)
	}
	r, err := Run(Spec{Scenario: sc, Seed: 1, Preset: "kafka-defaults"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(r.Reproduce, " -preset kafka-defaults") {
		t.Errorf("reproduce %s", r.Reproduce)
	}
}

// TestStressNote: -describe and the report label the scenario's values
// as stress values, naming Kafka's defaults next to them.
func TestStressNote(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	n := sc.StressNote()
	for _, want := range []string{"stress values", "request.timeout.ms=1000 (Kafka: 30000)", "net.response_loss=0.05", "-preset kafka-defaults"} {
		if !strings.Contains(n, want) {
			t.Errorf("note lacks %q: %s", want, n)
		}
	}
}
