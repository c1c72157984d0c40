package tally

import "github.com/idemsim/idemsim/model"

// CoordBumps counts the epoch bumps coordinators handed out, from the
// observation stream: an InitProducerId answer (model.ObsEpoch), or an
// EndTxn answer (model.ObsTxnOp; with transaction version 2 each one
// bumps, KIP-890), that gives a producer id an epoch above the last one
// it was given counts the difference: 1 for each bump it saw, and more
// only for bumps no answer showed (a timeout's abort, an InitProducerId
// that aborted an open transaction first). That covers the bump that fences a paused instance when its
// replacement initializes (the zombie's story, in which the client never
// bumps) and the bump a client asks for (KIP-360), which the client's own
// count has too; a retried answer ("retry of an earlier bump") is not a
// new bump. A bump of a transaction the coordinator aborts on timeout is
// counted when the next answer shows it.
type CoordBumps struct {
	last map[model.ProducerID]int16
	// N is the count so far.
	N int64
}

// NewCoordBumps returns a new counter, in old's memory when old is not
// nil (a finished run's).
func NewCoordBumps(old *CoordBumps) *CoordBumps {
	if old == nil {
		return &CoordBumps{last: map[model.ProducerID]int16{}}
	}
	clear(old.last)
	*old = CoordBumps{last: old.last}
	return old
}

// Observe counts o's bump, if it shows one.
func (c *CoordBumps) Observe(o *model.Obs) {
	if o.Kind == model.ObsTxnOp {
		// An EndTxn answer under transaction version 2 carries the epoch
		// the coordinator bumped to (one bump per transaction end).
		if _, end := o.Msg.(*model.EndTxnRequest); !end {
			return
		}
	} else if o.Kind != model.ObsEpoch {
		return
	}
	if o.Err != model.ErrNone || o.PID == model.NoProducerID || o.Epoch < 0 {
		return
	}
	if c.last == nil {
		c.last = map[model.ProducerID]int16{}
	}
	if last, ok := c.last[o.PID]; ok && o.Epoch > last {
		c.N += int64(o.Epoch) - int64(last)
	}
	c.last[o.PID] = o.Epoch
}
