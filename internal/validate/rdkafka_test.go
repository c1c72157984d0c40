//go:build librdkafka

package validate

import (
	"context"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// TestRdkafkaTransactions (go test -tags librdkafka ./internal/validate):
// librdkafka's transactional producer (rdTxn) against kfake, without
// faults, in transactions of 5 records: both sides commit the 30 records
// once each, and the real side's records are acknowledged by their
// transactions' commits.
func TestRdkafkaTransactions(t *testing.T) {
	sc, err := scenarios.Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Scenario: sc, Client: ClientLibrdkafka, Runs: 2, SimRuns: 2, Base: 1, Margin: Margin{Value: 0.05},
		Modes: []bool{true}, Parallel: 2,
		Sets: []params.KV{{Key: "records", Value: "30"}, {Key: "net.response_loss", Value: "0"},
			{Key: "transactional.id", Value: "t1"}, {Key: "transaction.records", Value: "5"},
			{Key: "request.timeout.ms", Value: "100000"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := Validate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		got := r.Counts
		if got.Sent != 30 || got.Acked != 30 || got.Appended != 30 || got.Failed != 0 || got.Duplicates != 0 || got.LostAcked != 0 {
			t.Errorf("%s side, run %d: %+v, want 30 sent, acknowledged and committed once", r.Side, r.Run, got)
		}
	}
	if len(res.Runs) != 4 {
		t.Errorf("%d runs, want 4", len(res.Runs))
	}
}
