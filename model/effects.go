package model

// obsSlab holds the observations a server reports during one call (Step,
// Wake, Start, Restart). Its [Out] values of kind OutObserve point into
// it, so an effect stays a few words wide instead of carrying a whole
// [Obs]; the pointers are valid until the node's next call, and the world
// copies what it keeps before it calls the node again.
type obsSlab struct{ obs []Obs }

// reset starts a call: the previous call's observations are dropped.
func (s *obsSlab) reset() { s.obs = s.obs[:0] }

// add stores o and returns the effect that reports it. When the slab
// grows, the effects made earlier in the call keep pointing into the old
// array, whose contents do not change.
func (s *obsSlab) add(o *Obs) Out {
	s.obs = append(s.obs, *o)
	return Out{Kind: OutObserve, Obs: &s.obs[len(s.obs)-1]}
}
