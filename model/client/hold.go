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

var _ model.EffectHolder = (*Producer)(nil)
