package model

// ServerBufs are a server's effect buffers: its call's effects and
// observations, and the effects the world holds. A server node embeds
// them, which makes it an [EffectHolder].
type ServerBufs struct {
	// Outs are the effects of the node's current or last call.
	Outs []Out
	// Obs holds the observations its OutObserve effects point to.
	Obs ObsSlab
	// held are the effect buffers the world holds in place.
	held EffectStack
}

// HoldEffects holds outs, the buffers' last call's effects, in place
// ([EffectHolder]).
func (s *ServerBufs) HoldEffects(outs []Out) bool {
	if !HeldBuf(outs, s.Outs) {
		return false
	}
	h := s.held.Hold(&s.Outs)
	h.obs, s.Obs.obs = s.Obs.obs, h.obs[:0]
	return true
}

// ReleaseEffects ends the newest hold ([EffectHolder]).
func (s *ServerBufs) ReleaseEffects() { s.held.Release() }

// ClearSpare zeroes the stale elements the buffers keep past their
// lengths, and the spare depths' ([EffectHolder]): at a run's end, a
// broker's last observations beyond its last call's still pointed at
// the run's batches, and through them at the producers' record chunks.
func (s *ServerBufs) ClearSpare() {
	s.held.ClearSpare()
	ClearTail(s.Outs)
	ClearTail(s.Obs.obs)
}

// Clear empties the buffers for a new run, keeping their memory, as a
// new node's.
func (s *ServerBufs) Clear() {
	s.Obs.drop()
	s.held.Reset()
	s.Outs = EmptiedNonNil(s.Outs)
}
