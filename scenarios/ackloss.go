package scenarios

import (
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

func init() { register(ackloss) }

func ackloss() *Scenario {
	return &Scenario{
		Name:    "ackloss",
		Summary: "an acknowledgement is lost; without idempotence the retry lands twice",
		Story: `The broker appends a batch, but its acknowledgement is lost on the way
back. The producer hears nothing, times out after request.timeout.ms,
reconnects and sends the same batch again. Without idempotence the broker
cannot tell the retry from new data and appends it a second time. With
idempotence the retry carries the same producer id, epoch and sequence
range as a batch in the broker's 5-batch window, so the broker answers it
with success and the original offset, and appends nothing.

Lost or delayed messages alone never break this (simulate -explore finds
no schedule of up to 3 message faults that does). Broker restarts can: an
unclean restart rebuilds the window from the newest snapshot, which keeps
each producer's newest batch only, so after two restarts with
acknowledgements in doubt the head batch's retry gets
OUT_OF_ORDER_SEQUENCE_NUMBER and the Java client bumps the epoch and
appends it again (INV-DUP, 3 faults; statelost tells the same story).`,
		ExpectOff: "duplicates in about the fraction of runs the response loss predicts (INV-DUP fails)",
		ExpectOn:  "no duplicates, no reordering, nothing acknowledged is lost",
		OffShows:  []string{"INV-DUP"},
		Bugs:      []string{"Z16"},
		Defaults: []params.KV{
			{Key: "records", Value: "20"},
			{Key: "net.response_loss", Value: "0.05"},
			{Key: "request.timeout.ms", Value: "1000"},
			{Key: "batch.size", Value: "1"},
			// The story: the producer hears nothing and waits for
			// request.timeout.ms, so no RST tells it the connection broke.
			{Key: "net.disconnect_notice", Value: "0"},
		},
		build: func(b world.Builder) error {
			b.AddApp(0)
			return nil
		},
	}
}
