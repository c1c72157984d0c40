package check

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// recTable holds what the checkers keep per record, compactly: a 24-byte
// slot per record in pages of recPageSize consecutive message numbers of
// one application (an application numbers its records densely from 0,
// so a page fills up), instead of maps keyed by record id (about 180
// bytes a record for the three maps it replaces). The rare values a slot
// cannot hold are kept aside: copy counts from recCopiesMax up, and
// acknowledged digests that are not the world's own (model.Digest(id, 0)).
//
// The representation is canonical: a page exists iff one of its records
// has something (a slot that was written is never zero again), and its
// slots run up to its highest such record; pages are in (application,
// page) order. Equal tables are equal field by field.
type recTable struct {
	// pages are in (app, page) order.
	pages []recPage
	// copiesOver holds the committed copies of the records with at
	// least recCopiesMax (their slot says recCopiesMax).
	copiesOver map[model.RecordID]int32
	// digests holds the acknowledged digests that are not
	// model.Digest(id, 0) (their slot has recOddDigest).
	digests map[model.RecordID]uint64
	// acked and failed count the records whose outcome is an
	// acknowledgement, and a failure.
	acked, failed int64
}

// recPageBits is log2 of the records per page.
const recPageBits = 12

// recPageSize is the number of records a page covers (4,096).
const recPageSize = 1 << recPageBits

// recCopiesMax is the largest copy count a slot holds; from it up the
// count is in recTable.copiesOver.
const recCopiesMax = 255

// recPage holds the slots of application app's records numbered
// page<<recPageBits + i, for i < len(slots).
type recPage struct {
	app   int32
	page  int64
	slots []recSlot
}

// recSlot is one record's facts. The outcome fields (part, offset, at)
// are the kept outcome's when it is an acknowledgement, else zero.
type recSlot struct {
	// copies counts the record's committed copies so far, up to
	// recCopiesMax.
	copies uint8
	flags  recFlags
	// part is the partition the acknowledgement names.
	part int32
	// offset is the acknowledged offset (-1: unknown).
	offset int64
	// at is when the outcome was reported (simulated ns).
	at sim.Time
}

// recFlags are a slot's yes-no facts.
type recFlags uint8

const (
	// recOutcome: the record has an outcome.
	recOutcome recFlags = 1 << iota
	// recAcked: the kept outcome is an acknowledgement (the first
	// acknowledgement wins, else the first failure).
	recAcked
	// recTxn: the acknowledgement is of a record sent in a transaction.
	recTxn
	// recTxnCommitted: the application was told the record's
	// transaction committed.
	recTxnCommitted
	// recOddDigest: the acknowledged digest is in recTable.digests.
	recOddDigest
)

// reset empties the table, keeping its pages' memory behind the
// length.
func (t *recTable) reset() {
	for i := range t.pages {
		t.pages[i] = recPage{slots: truncated(t.pages[i].slots)}
	}
	if t.pages == nil {
		t.pages = []recPage{}
	}
	t.pages = t.pages[:0]
	t.copiesOver = cleared(t.copiesOver)
	t.digests = cleared(t.digests)
	t.acked, t.failed = 0, 0
}

// pageOf splits a message number into its page and its index there.
func pageOf(n int64) (int64, int) { return n >> recPageBits, int(n & (recPageSize - 1)) }

// find returns the index of (app, page) in t.pages, or where it goes: a
// binary search written out (pages are ordered by application, then
// page), as it runs for every record observed.
func (t *recTable) find(app int32, page int64) (int, bool) {
	lo, hi := 0, len(t.pages)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p := &t.pages[m]; p.app < app || p.app == app && p.page < page {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(t.pages) && t.pages[lo].app == app && t.pages[lo].page == page
}

// get returns id's slot, or the zero slot when it has none.
func (t *recTable) get(id model.RecordID) recSlot {
	page, j := pageOf(id.N)
	i, ok := t.find(id.App, page)
	if !ok || j >= len(t.pages[i].slots) {
		return recSlot{}
	}
	return t.pages[i].slots[j]
}

// slot returns id's slot, adding it; the caller makes it non-zero.
func (t *recTable) slot(id model.RecordID) *recSlot {
	page, j := pageOf(id.N)
	i, ok := t.find(id.App, page)
	if !ok {
		var spare recPage
		t.pages, spare = insertedAt(t.pages, i)
		t.pages[i] = recPage{app: id.App, page: page, slots: spare.slots[:0]}
	}
	p := &t.pages[i]
	if j >= len(p.slots) {
		if j < cap(p.slots) {
			p.slots = p.slots[:j+1] // zero behind the length (reset clears)
		} else {
			// Doubling, but never past the page's end.
			grown := make([]recSlot, j+1, min(max(2*cap(p.slots), j+1, 64), recPageSize))
			copy(grown, p.slots)
			p.slots = grown
		}
	}
	return &p.slots[j]
}

// copies returns id's committed copies so far.
func (t *recTable) copies(id model.RecordID) int32 {
	c := t.get(id).copies
	if c == recCopiesMax {
		return t.copiesOver[id]
	}
	return int32(c)
}

// addCopy counts one more committed copy of id and returns the count.
func (t *recTable) addCopy(id model.RecordID) int32 {
	s := t.slot(id)
	switch {
	case s.copies < recCopiesMax-1:
		s.copies++
		return int32(s.copies)
	case s.copies == recCopiesMax-1:
		s.copies = recCopiesMax
		t.copiesOver[id] = recCopiesMax
		return recCopiesMax
	}
	n := t.copiesOver[id] + 1
	t.copiesOver[id] = n
	return n
}

// addOutcome keeps o when id has no outcome yet, or when o acknowledges
// a record whose kept outcome is a failure.
func (t *recTable) addOutcome(o *model.Outcome) {
	s := t.slot(o.ID)
	ack := o.Err == model.ErrNone
	if s.flags&recOutcome != 0 {
		if s.flags&recAcked != 0 || !ack {
			return
		}
		t.failed--
	}
	s.flags |= recOutcome
	if !ack {
		t.failed++
		return
	}
	t.acked++
	s.flags |= recAcked
	if o.Txn {
		s.flags |= recTxn
	}
	s.part, s.offset, s.at = o.Partition, o.Offset, o.At
	if o.Digest != model.Digest(o.ID, 0) {
		s.flags |= recOddDigest
		t.digests[o.ID] = o.Digest
	}
}

// setTxnCommitted notes that id's transaction was reported committed.
func (t *recTable) setTxnCommitted(id model.RecordID) { t.slot(id).flags |= recTxnCommitted }

// txnCommitted tells whether id's transaction was reported committed.
func (t *recTable) txnCommitted(id model.RecordID) bool {
	return t.get(id).flags&recTxnCommitted != 0
}

// ack is a record's acknowledgement as the checkers read it.
type ack struct {
	id     model.RecordID
	part   int32
	offset int64
	at     sim.Time
	digest uint64
	txn    bool
}

// ackOf returns the acknowledgement of the record in slot s, named id.
func (t *recTable) ackOf(id model.RecordID, s *recSlot) ack {
	a := ack{id: id, part: s.part, offset: s.offset, at: s.at, txn: s.flags&recTxn != 0, digest: model.Digest(id, 0)}
	if s.flags&recOddDigest != 0 {
		a.digest = t.digests[id]
	}
	return a
}

// ackFor returns id's acknowledgement, if it has one.
func (t *recTable) ackFor(id model.RecordID) (ack, bool) {
	s := t.get(id)
	if s.flags&recAcked == 0 {
		return ack{}, false
	}
	return t.ackOf(id, &s), true
}

// id returns the id of the record in slot j.
func (p *recPage) id(j int) model.RecordID {
	return model.RecordID{App: p.app, N: p.page<<recPageBits + int64(j)}
}
