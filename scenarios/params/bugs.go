package params

import (
	"fmt"
	"slices"
	"strings"
)

// Bug is one documented historical defect that -bug turns back on: the
// parameter settings that model it, where it comes from, and the invariant
// it breaks.
type Bug struct {
	// ID is the defect's label: idemsim's own (Z11, Z13, ...) or its
	// KAFKA key.
	ID string
	// Title says what goes wrong, in one line.
	Title string
	// Source is the KAFKA key or issue link.
	Source string
	// Scenario is where the defect shows.
	Scenario string
	// Sets are the parameter values that turn the defect on.
	Sets []KV
	// Breaks is the invariant the defect violates.
	Breaks string
	// FixedIn is the first Kafka release without the defect, when it is a
	// Kafka broker defect that idemsim's version profiles know: the runs
	// "without the bug" use kafka.version=FixedIn, since older releases
	// (the default among them) have it. Empty: the defect is off at every
	// version unless -bug turns it on.
	FixedIn string
	// IntroducedIn is the first Kafka release with the defect, when it is
	// not every release before FixedIn.
	IntroducedIn string
	// WhatIf marks a defect no Kafka release or shipped client has: a
	// what-if that shows why a rule exists. Its Source says which rule.
	WhatIf bool
	// Off are the settings without the defect when every covered release
	// has it (its fix came later): the runs "without the bug" use them.
	Off []KV
}

// Bugs returns the -bug catalogue, sorted by ID.
func Bugs() []Bug {
	b := []Bug{
		{ID: "K19367", Title: "Kafka 4.0 bumps the epoch twice when it fences a transaction version 2 transaction (a timeout or a new instance): the producer's own abort is neither current nor a retry and is fenced",
			Source: "KAFKA-19367 (fixed in 4.1); TransactionCoordinator.endTransaction's transaction version 2 completion after prepareFenceProducerEpoch", Scenario: "txntimeout",
			Sets: []KV{{"kafka.version", "4.0"}}, Breaks: "LIVE-PROD", FixedIn: "4.1", IntroducedIn: "4.0"},
		{ID: "Z10", Title: "the coordinator lets a producer epoch run past its maximum instead of rotating the producer id",
			Source: "what-if: every release rotates the producer id at an exhausted epoch (TransactionMetadata.isProducerEpochExhausted)", Scenario: "epochx",
			Sets: []KV{{"coordinator.bug.no_rotate", "true"}}, Breaks: "INV-EPOCH", WhatIf: true},
		{ID: "Z05b", Title: "the coordinator aborts a timed-out transaction without bumping the epoch, so the producer carries on and its commit silently loses the aborted records",
			Source: "KAFKA-6119 (fixed in 1.1.0)", Scenario: "txntimeout",
			Sets: []KV{{"coordinator.bug.no_bump_on_timeout", "true"}, {"transaction.partition.verification.enable", "false"}}, Breaks: "INV-LOSS"},
		{ID: "Z17", Title: "librdkafka bumps a transactional producer's epoch inside its transaction: the coordinator aborts it, the client commits the rest and reports every record committed",
			Source: "https://github.com/confluentinc/librdkafka/issues/3575 (fixed in v1.8.2)", Scenario: "crossbump",
			Sets: []KV{{"client.policy", "librdkafka"}, {"producer.bug.txn_bump_in_txn", "true"}, {"transactional.id", "t1"}, {"transaction.records", "10"}}, Breaks: "INV-TXN"},
		{ID: "Z19", Title: "a batch that arrives after its transaction's same-epoch abort opens a transaction no coordinator will end: the last stable offset hangs",
			Source: "KAFKA-14053, KIP-890 (Kafka before 3.6: no partition verification, the classic protocol)", Scenario: "hanging",
			Sets: []KV{{"transaction.partition.verification.enable", "false"}, {"transaction.version", "0"}}, Breaks: "LIVE-LSO", FixedIn: "3.6"},
		{ID: "Z20", Title: "a delayed EndTxn of one transaction ends the next one, which shares its producer id and epoch under the classic protocol",
			Source: "KAFKA-17754 (Jepsen, Bufstream 0.1.0 analysis), fixed by KIP-890 part 2 (transaction version 2, Kafka 4.0)", Scenario: "txnlate",
			Sets: []KV{{"transaction.version", "0"}}, Breaks: "INV-TXN", FixedIn: "4.0"},
		{ID: "KAFKA-14904", Title: "a transaction's first batch fails retriably (its verification answered CONCURRENT_TRANSACTIONS by a coordinator with a pending transition, or its append) while a later in-flight batch is verified and appended first; the first one's retry loops on OUT_OF_ORDER_SEQUENCE_NUMBER",
			Source: "KAFKA-14904, KAFKA-14920 (fixed in 3.6.0: the verification sequence guard)", Scenario: "crossbump",
			Sets: []KV{{"broker.version", "3.6"}, {"client.version", "3.6"}, {"transactional.id", "t1"}, {"transaction.records", "10"},
				{"coordinator.log.append.time", "20ms"}, {"broker.bug.no_verification_guard", "true"}, {"broker.empty.partition.check", "false"}}, Breaks: "INV-SEQ"},
		{ID: "Z08", Title: "a restarted broker comes back without producer state (no snapshot, no rebuild from the log)",
			Source: "what-if: Kafka rebuilds producer state from its snapshot and log on a restart; KAFKA-5435 and KAFKA-9892 were defects in that rebuild", Scenario: "statelost",
			Sets: []KV{{"broker.restart.rebuild", "none"}}, Breaks: "INV-DUP", WhatIf: true},
		{ID: "Z11", Title: "a metadata flap makes the client restart its sequences at 0 under the same epoch: new records are 'deduplicated' away",
			Source: "librdkafka v1.9.0 fix 6a17fdd9b (\"Fix message loss in idempotent/transactional producer\")", Scenario: "seqreuse",
			Sets: []KV{{"producer.bug.metaflap_reset", "true"}}, Breaks: "INV-DEDUP"},
		{ID: "Z11f", Title: "a written batch that times out gives its sequence numbers back; the next records take them and are 'deduplicated' away",
			Source: "https://github.com/twmb/franz-go/issues/1217 (fixed in v1.20.7)", Scenario: "seqreuse",
			Sets: []KV{{"producer.bug.reuse_expired_seq", "true"}}, Breaks: "INV-DEDUP"},
		{ID: "Z12", Title: "a never-written partition accepts an unknown producer at any sequence, so a later batch overtakes a retried first one",
			Source: "KAFKA-15591 (fixed after 4.1: apache/kafka pull request 23234)", Scenario: "emptypart",
			Sets: []KV{{"broker.empty.partition.check", "false"}}, Breaks: "INV-SEQ", Off: []KV{{"broker.empty.partition.check", "true"}}},
		{ID: "Z13", Title: "librdkafka bumps the epoch on an OUT_OF_ORDER_SEQUENCE_NUMBER of a non-head batch and restarts every partition at 0, re-appending possibly-written batches (every release to v2.15: -bug Z13 runs the librdkafka policy, which has it)",
			Source: "https://github.com/confluentinc/librdkafka/issues/4953 (open; the fix, pull request #4972, is unmerged: producer.whatif.librdkafka_no_skip_bump); src/rdkafka_request.c, rd_kafka_idemp_drain_epoch_bump \"skipped sequence numbers\"", Scenario: "crossbump",
			Sets: []KV{{"client.policy", "librdkafka"}}, Breaks: "INV-DUP"},
		{ID: "Z16", Title: "the broker keeps no dedup window and answers a retry OUT_OF_ORDER_SEQUENCE_NUMBER; the client bumps and resends it as new",
			Source: "https://github.com/redpanda-data/redpanda/issues/3039 (Redpanda up to 21.10)", Scenario: "ackloss",
			Sets: []KV{{"broker.dedup", "false"}}, Breaks: "INV-DUP"},
	}
	slices.SortFunc(b, func(x, y Bug) int { return strings.Compare(x.ID, y.ID) })
	return b
}

// LookupBug returns the bug with the given ID.
func LookupBug(id string) (Bug, error) {
	var ids []string
	for _, b := range Bugs() {
		if b.ID == id {
			return b, nil
		}
		ids = append(ids, b.ID)
	}
	return Bug{}, fmt.Errorf("unknown bug %q%s (known: %s)", id, DidYouMean(id, ids), strings.Join(ids, ", "))
}

// BugsFor returns the bugs whose home is scenario name.
func BugsFor(name string) []Bug {
	var out []Bug
	for _, b := range Bugs() {
		if b.Scenario == name {
			out = append(out, b)
		}
	}
	return out
}
