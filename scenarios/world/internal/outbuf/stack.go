package outbuf

import "github.com/idemsim/idemsim/model"

// Stack is one buffer set per call depth. The zero Stack is ready.
type Stack struct {
	// Outs are per-depth copies of a node's effects, so that a node
	// re-entered by an instant message can reuse its own buffer.
	Outs [][]model.Out
	// Obs are per-depth copies of the observations among them, notes of
	// the expired batches their notes point to, and res, txns and ids of
	// the outcomes and transaction results (with their records) their
	// results point to.
	Obs   [][]model.Obs
	notes [][]model.Batch
	res   [][]model.Outcome
	txns  [][]model.TxnResult
	ids   [][]model.RecordID
	depth int
}

// MaxKept is the largest effect buffer kept for reuse, in effects.
const MaxKept = 1024

// Push copies a node's effects into the buffer for the current depth,
// with what they point to, and returns the copy; Pop ends its use.
func (s *Stack) Push(outs []model.Out) []model.Out {
	if s.depth == len(s.Outs) {
		s.Outs = append(s.Outs, nil)
	}
	b := append(s.Outs[s.depth][:0], outs...)
	s.Outs[s.depth] = b
	// A server's observations point into its own buffer, which its next
	// call reuses: keep a copy at this depth.
	if s.depth == len(s.Obs) {
		s.Obs = append(s.Obs, nil)
	}
	for s.depth >= len(s.notes) {
		s.notes, s.res = append(s.notes, nil), append(s.res, nil)
		s.txns, s.ids = append(s.txns, nil), append(s.ids, nil)
	}
	ob, nb := s.Obs[s.depth][:0], s.notes[s.depth][:0]
	rb, tb, ib := s.res[s.depth][:0], s.txns[s.depth][:0], s.ids[s.depth][:0]
	for i := range b {
		// What an effect points to is in the node's buffers, which
		// its next call reuses.
		switch {
		case b[i].Kind == model.OutObserve:
			ob = append(ob, *b[i].Obs)
			b[i].Obs = &ob[len(ob)-1]
		case b[i].Batch != nil: // an expired batch's note
			nb = append(nb, *b[i].Batch)
			b[i].Batch = &nb[len(nb)-1]
		case b[i].Result != nil:
			rb = append(rb, *b[i].Result)
			b[i].Result = &rb[len(rb)-1]
		case b[i].Txn != nil:
			t := *b[i].Txn
			from := len(ib)
			ib = append(ib, t.Records...)
			t.Records = ib[from:len(ib):len(ib)]
			tb = append(tb, t)
			b[i].Txn = &tb[len(tb)-1]
		}
	}
	s.Obs[s.depth], s.notes[s.depth] = ob, nb
	s.res[s.depth], s.txns[s.depth], s.ids[s.depth] = rb, tb, ib
	s.depth++
	return b
}

// Pop ends the use of the current depth's buffers. A buffer a burst grew
// past MaxKept (the producer expiring a whole backlog at once) is dropped
// rather than kept, with the burst's notes and messages, for the rest of
// the run; a small one keeps its last effects until the next call
// overwrites them (clearing it after every call cost more than it saved).
func (s *Stack) Pop() {
	s.depth--
	if cap(s.Outs[s.depth]) > MaxKept {
		s.Outs[s.depth] = nil
	}
	if cap(s.Obs[s.depth]) > MaxKept {
		s.Obs[s.depth] = nil
	}
	if cap(s.notes[s.depth]) > MaxKept {
		s.notes[s.depth] = nil
	}
	if cap(s.res[s.depth]) > MaxKept || cap(s.txns[s.depth]) > MaxKept || cap(s.ids[s.depth]) > 64*MaxKept {
		s.res[s.depth], s.txns[s.depth], s.ids[s.depth] = nil, nil, nil
	}
}

// Recycle returns a Stack for a new run that keeps s's effect and
// observation buffers, emptied (their entries point into the old run).
func (s *Stack) Recycle() Stack {
	for i := range s.Outs {
		clear(s.Outs[i][:cap(s.Outs[i])])
		s.Outs[i] = s.Outs[i][:0]
	}
	for i := range s.Obs {
		clear(s.Obs[i][:cap(s.Obs[i])])
		s.Obs[i] = s.Obs[i][:0]
	}
	return Stack{Outs: s.Outs, Obs: s.Obs}
}
