package validate

import (
	"context"
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// TestTxnTimeoutPause runs txntimeout's first seed for real with
// franz-go: the pause waits for the client's first acknowledgement
// (PauseAfterAck) and lasts its whole length although the application's
// last send comes before its end, so the transaction outlives
// transaction.timeout.ms and kfake fences the stale epoch. With the pause
// placed at its simulated time, or ended at the last send, nothing timed
// out (fenced 0).
func TestTxnTimeoutPause(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run of a few seconds")
	}
	t.Parallel() // its real runs mostly wait; no goroutine count here
	sc, err := scenarios.Lookup("txntimeout")
	if err != nil {
		t.Fatal(err)
	}
	sup, _ := Supports("txntimeout")
	spec := scenarios.Spec{Scenario: sc, Seed: 1, Sets: append([]params.KV{{Key: "client.policy", Value: "franz-go"}, {Key: "app.input", Value: "synthetic"}}, sup.Sets...)}
	res, err := scenarios.Resolve(spec)
	if err != nil {
		t.Fatal(err)
	}
	text, err := scenarios.PlanText(spec)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := faults.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := RunReal(context.Background(), RealSpec{Resolved: res, Plan: plan, Seed: 1, Scale: sup.Scale, Instances: 1,
		Deadline: 30 * time.Second, PauseAfterAck: sup.PauseAfterAck})
	if err != nil {
		t.Fatal(err)
	}
	pause := time.Duration(float64(res.Config.Extra.Pause) * sup.Scale)
	if took := time.Since(start); took < pause {
		t.Errorf("the run took %v, less than its pause of %v", took, pause)
	}
	if c.Fenced == 0 || c.Errors["INVALID_PRODUCER_EPOCH"] == 0 {
		t.Errorf("the transaction did not time out: %+v", c)
	}
	if c.Duplicates != 0 || c.LostAcked != 0 {
		t.Errorf("duplicates %d, lost acknowledged records %d; want none", c.Duplicates, c.LostAcked)
	}
}
