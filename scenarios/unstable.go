package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

func init() { register(unstable) }

func unstable() *Scenario {
	return &Scenario{
		Name:    "unstable",
		Summary: "KIP-447: a zombie pauses between its TxnOffsetCommit and its EndTxn; the new owner is answered UNSTABLE_OFFSET_COMMIT until the coordinator aborts the transaction on its timeout",
		Story: `eosv2's application (app.mode=exactly-once-v2, Kafka 2.5 and later: two
instances p1 and p2 in group app-0, each a consumer and a transactional
producer that commits its consumer's offsets in its transactions with
sendOffsetsToTransaction(offsets, groupMetadata)). p1 pauses right after the
group coordinator accepted the TxnOffsetCommit of its pause.txn-th
transaction (3), before its EndTxn: the transaction's offsets are pending
in the group coordinator. The pause is placed there by the run itself: the
plan is drawn from a first run of the same seed without it, in which the
time the coordinator accepted that commit and the time its answer reached
p1 are read; the pause starts half way between (the printed plan holds the
time, so -plan-file replays it). The pause lasts longer than
transaction.timeout.ms plus the abort cleanup interval (pause.ms 0:
transaction.timeout.ms + transaction.abort.timed.out.transaction.cleanup.interval.ms
+ session.timeout.ms), so p1 never ends its transaction itself.

After session.timeout.ms (10s) the group removes p1 and gives its input
partition to p2, which fetches the committed offsets with require_stable
(KIP-447, OffsetFetch v7): the group coordinator answers
UNSTABLE_OFFSET_COMMIT while a transaction holds a pending offset of the
partition (OffsetMetadataManager.fetchOffsets), and the consumer retries
after retry.backoff.ms. The transaction coordinator aborts p1's
transaction once it is older than transaction.timeout.ms (20s here;
Kafka's default is 60s), at the first check of its abort timer
(TransactionStateManager.timedOutTransactions, run every
transaction.abort.timed.out.transaction.cleanup.interval.ms, 10s, by
TransactionCoordinator.abortTimedOutTransactions); the abort marker drops
the pending offsets, and p2's next fetch succeeds. p2 stalls from its first
UNSTABLE_OFFSET_COMMIT answer to that fetch (offset_fetch_stall_ms): about
transaction.timeout.ms less the time the group took to move the partition
(session.timeout.ms and the rebalance), plus up to one cleanup interval.
That is Kafka's design, not a defect: LIVE-OFFSET fails only past
unstable.bound.ms (0: transaction.timeout.ms + the cleanup interval + 5s).
When p1 wakes, its EndTxn(COMMIT) at the old epoch is answered
INVALID_TXN_STATE (the abort bumped the epoch; the model of 4.1), fatal to
its producer; its records of that transaction were aborted, and p2 has
read them again from the last committed offset: every input record
appears once in the committed output (INV-EOS). Kafka 2.5 and later (KIP-447; the models run
4.1 by default, 3.9 with -set kafka.version=3.9).

Without idempotence (-idempotence=false) there are no transactions: the
consumers commit their positions every 5s (enable.auto.commit), no
offset is ever pending, p2 never stalls, and it reads p1's partition from
p1's last commit, writing again what p1 wrote since (INV-DUP).`,
		ExpectOff: "no transactions, no stall: the consumers auto-commit every 5s; p2 reads p1's partition from p1's last commit and writes those records again (INV-DUP)",
		ExpectOn:  "p2 is answered UNSTABLE_OFFSET_COMMIT until the coordinator aborts p1's transaction on its timeout (offset_fetch_stall_ms about transaction.timeout.ms less session.timeout.ms, plus up to one cleanup interval); no duplicates; INV-EOS holds; LIVE-OFFSET holds below unstable.bound.ms",
		Defaults:  append(eosv2Defaults("exactly-once-v2"), params.KV{Key: "transaction.timeout.ms", Value: "20000"}),
		Extra: []params.Param{
			{Key: "pause.txn", Kind: params.Int, Default: "3", Doc: "p1 pauses right after the group coordinator accepts the TxnOffsetCommit of this transaction of p1's, before its EndTxn (the time read from a first run of the seed without the pause)", Min: 1, Max: 1000},
			{Key: "pause.ms", Kind: params.Int, Default: "0", Unit: "ms", Doc: "length of p1's pause; 0 = transaction.timeout.ms + transaction.abort.timed.out.transaction.cleanup.interval.ms + session.timeout.ms, so that the coordinator aborts the transaction before p1 wakes", Min: 0, Max: 3_600_000},
		},
		OffShows: []string{"INV-DUP"},
		build: func(b world.Builder) error {
			b.AddApp(0)
			return nil
		},
		planFor: unstablePlan,
	}
}

// unstablePause returns the length of p1's pause: pause.ms, or when it is
// 0 the transaction timeout plus the abort cleanup interval plus the
// session timeout.
func unstablePause(c *params.Config) time.Duration {
	if c.Extra.Pause > 0 {
		return c.Extra.Pause
	}
	return c.Producer.TransactionTimeout + c.Coordinator.AbortCleanupInterval + c.App.SessionTimeout
}

// unstablePlan returns the plan function of a run of s: it runs s first
// without the pause (the same seed, the same world up to the pause's
// time, as no fault acts before it) to find when the group coordinator
// accepts p1's pause.txn-th TxnOffsetCommit and when its answer reaches
// p1, and pauses p1 half way between. Noise (fault.count) is drawn
// around the pause afterwards: a noise fault before the pause can move
// the window, and the pause may then miss it. Without such a commit (no
// transactions, or a run too short) p1 pauses as in eosv2, at 2.5s
// jittered by up to 1s.
func unstablePlan(s world.Setup) world.PlanFunc {
	return func(rng *rand.Rand, v *params.Values, nodes faults.Nodes) faults.Plan {
		c := v.Config()
		var p faults.Plan
		if c.Producer.EnableIdempotence && len(nodes.Clients) > 0 {
			a := &txnAnchor{want: c.Extra.PauseTxn}
			pre := world.Setup{Name: s.Name, Build: s.Build, Resolved: s.Resolved, Seed: s.Seed, Bugs: s.Bugs, MaxEvents: s.MaxEvents, MaxState: s.MaxState,
				Plan:    func(*rand.Rand, *params.Values, faults.Nodes) faults.Plan { return faults.Plan{} },
				Readers: []world.MakeReader{func(l *world.Layout) world.Reader { a.layout(l, nodes.Clients[0]); return a }}}
			var r world.Runner
			if _, err := r.Run(&pre); err == nil && a.answered > a.accepted {
				at := a.accepted + (a.answered-a.accepted)/2
				p.Actions = []faults.Timed{{At: time.Duration(at), Action: faults.Pause{Node: nodes.Clients[0], For: unstablePause(c)}}}
			}
		}
		if len(p.Actions) == 0 && len(nodes.Clients) > 0 {
			// No transactions (or none committed its offsets pause.txn
			// times): eosv2's pause, at 2.5s and up to 1s later.
			p.Actions = []faults.Timed{{At: jitter(rng, 2500*time.Millisecond, time.Second), Action: faults.Pause{Node: nodes.Clients[0], For: unstablePause(c)}}}
		}
		return withNoise(rng, v, nodes, p)
	}
}

// txnAnchor reads a run's observations for the time the group
// coordinator accepts instance node's want-th TxnOffsetCommit (accepted)
// and the time the answer reaches the instance (answered).
type txnAnchor struct {
	node               int32
	want, seen         int64
	accepted, answered sim.Time
}

func (a *txnAnchor) layout(l *world.Layout, name string) {
	a.node = -1
	for i, n := range l.Names {
		if n == name {
			a.node = int32(i)
		}
	}
}

func (a *txnAnchor) Observe(o *model.Obs) {
	switch {
	case a.seen < a.want && o.Kind == model.ObsOffsets && o.Text == "txn-offset-commit" && o.Peer == a.node && o.Err == model.ErrNone:
		if a.seen++; a.seen == a.want {
			a.accepted = o.At
		}
	case a.seen == a.want && a.answered == 0 && o.Kind == model.ObsDelivered && o.Node == a.node:
		if r, ok := o.Msg.(*model.TxnResponse); ok && r.Op == "TxnOffsetCommit" {
			a.answered = o.At
		}
	}
}

func (a *txnAnchor) Held() int64         { return 0 }
func (a *txnAnchor) End(e *world.RunEnd) {}
