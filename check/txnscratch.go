package check

import "github.com/idemsim/idemsim/model"

// txnScratch is what INV-TXN's Finish (txn.go) works in: sorted lists in
// place of maps, kept between runs for their memory and emptied after
// each Finish.
type txnScratch struct {
	// ents lists the transactional data entries with records, by
	// transaction; parts sums them up per transaction, in key order.
	ents  []txnEntry
	parts []txnParts
	// keys are the transactions reported committed, wanted the records
	// they acknowledged, in id order.
	keys   []txnKey
	wanted []wantedRec
	// mixed lists the entries of the COMMIT markers that decided more
	// than one transaction; pend and mixedAt find those markers, one
	// partition at a time.
	mixed   []mixRef
	pend    []pendMarker
	mixedAt []int32
	// vs holds the violations being reported.
	vs []Violation
}

// txnEntry is a transactional data entry: its transaction, where it is
// (partition p, index i), its fate and its number of records.
type txnEntry struct {
	k    txnKey
	p, i int32
	fate fate
	n    int32
}

// txnParts is one transaction's records by fate at the run's end: how
// many are visible and aborted, and the first of each in log order.
type txnParts struct {
	k                          txnKey
	visible, aborted           int
	firstVisible, firstAborted place
}

// wantedRec is a record a transaction reported committed acknowledged,
// and what became of its copies: visible, above the LSO, or aborted (the
// first aborted copy in log order).
type wantedRec struct {
	id                      model.RecordID
	visible, stuck, aborted bool
	abortedAt               place
}

// mixRef is an entry of transaction k at index i of partition p's log,
// decided by the COMMIT marker at index marker.
type mixRef struct {
	p, marker int32
	k         txnKey
	i         int32
}

// pendMarker is a COMMIT marker at index at whose decided entries are
// being met: the first one's transaction, and whether another's came.
type pendMarker struct {
	at    int32
	k     txnKey
	mixed bool
}

func (sc *txnScratch) reset() {
	sc.ents = truncated(sc.ents)
	sc.parts = truncated(sc.parts)
	sc.keys = truncated(sc.keys)
	sc.wanted = truncated(sc.wanted)
	sc.mixed = truncated(sc.mixed)
	sc.pend = truncated(sc.pend)
	sc.mixedAt = truncated(sc.mixedAt)
	sc.vs = truncated(sc.vs)
}

// done empties the scratch after a Finish that reported vs (its memory,
// which the suite copies out before anything else runs). A list a big
// run grew past scratchKeep is released (trimmed).
func (sc *txnScratch) done(vs []Violation) {
	sc.ents, sc.parts, sc.keys, sc.wanted, sc.mixed = trimmed(sc.ents), trimmed(sc.parts), trimmed(sc.keys), trimmed(sc.wanted), trimmed(sc.mixed)
	sc.pend, sc.mixedAt = trimmed(sc.pend), trimmed(sc.mixedAt)
	sc.vs = vs[:0]
}
