package check

// Invariant names, in report order (the README's invariant table).
const (
	InvDup   = "INV-DUP"
	InvLoss  = "INV-LOSS"
	InvOrder = "INV-ORDER"
	InvSeq   = "INV-SEQ"
	InvDedup = "INV-DEDUP"
	InvFence = "INV-FENCE"
	InvState = "INV-STATE"
	InvEpoch = "INV-EPOCH"
	LiveProd = "LIVE-PROD"
)

// Violation is one broken invariant, with the records or batches involved
// and the simulated time (nanoseconds since the start of the run) it broke
// at. Reports serialize it as {"invariant", "detail", "at_ns"}.
type Violation struct {
	Invariant string `json:"invariant"`
	Detail    string `json:"detail"`
	AtNs      int64  `json:"at_ns"`
}
