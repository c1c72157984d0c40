package check

// meanings are the invariants' short names for a chart or a caption:
// what a violation is, in a few words (the README's invariant table has
// the full rule).
var meanings = map[string]string{
	InvDup:     "a record committed twice",
	InvLoss:    "an acknowledged record lost",
	InvOrder:   "records out of send order",
	InvSeq:     "a gap or jump in a producer's sequence numbers",
	InvDedup:   "a duplicate answered with the wrong batch",
	InvFence:   "a fenced producer's write appended",
	InvState:   "producer state differing from its log after a restart",
	InvEpoch:   "an epoch out of range or going back",
	InvEOS:     "input not exactly once in the output",
	InvTxn:     "an aborted, lost or torn transaction as read_committed sees it",
	LiveProd:   "records unresolved, a spurious fatal or an unsettled run",
	LiveLSO:    "a hanging transaction pinning the last stable offset",
	InvRead:    "a read_committed consumer returning aborted or unstable data",
	InvPos:     "a consumer position moving back without a logged reset",
	LiveRead:   "a read_committed consumer stuck behind the last stable offset",
	LiveOffset: "a group member stuck on UNSTABLE_OFFSET_COMMIT",
	SimOutcome: "the simulator's own accounting broken",
}

// Meaning returns what a violation of the invariant is, in a few words,
// or "" for a name that is not an invariant.
func Meaning(invariant string) string { return meanings[invariant] }
