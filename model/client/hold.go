package client

import "github.com/idemsim/idemsim/model"

// HoldEffects holds outs in place ([model.EffectHolder]); a burst (more than
// [model.OutsKeptMax] effects, never written again) needs no hold.
func (p *Producer) HoldEffects(outs []model.Out) bool {
	if len(outs) > model.OutsKeptMax || !model.HeldBuf(outs, p.out) {
		return false
	}
	b := p.held.Hold(&p.out)
	b.Notes, p.pool.notes = p.pool.notes, b.Notes[:0]
	b.IDs, p.pool.txnIDs = p.pool.txnIDs, b.IDs[:0]
	b.Results, p.pool.results = p.pool.results, b.Results[:0]
	b.Txns, p.pool.txns = p.pool.txns, b.Txns[:0]
	return true
}

// ReleaseEffects ends the newest hold ([model.EffectHolder]).
func (p *Producer) ReleaseEffects() { p.held.Release() }

// ClearSpare zeroes the stale elements the instance's effect buffers
// keep past their lengths and in their spare depths ([model.EffectHolder]):
// effects pointing at the run's requests, notes and results at its
// batches and records. TrimLists calls it at a run's end.
func (p *Producer) ClearSpare() {
	p.held.ClearSpare()
	model.ClearTail(p.out)
	model.ClearTail(p.pool.notes)
	model.ClearTail(p.pool.txnIDs)
	model.ClearTail(p.pool.results)
	model.ClearTail(p.pool.txns)
}

var _ model.EffectHolder = (*Producer)(nil)
