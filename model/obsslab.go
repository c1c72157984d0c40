package model

// ObsSlab holds the observations a server reports during one call (Step,
// Wake, Start, Restart). Its [Out] values of kind OutObserve point into
// it, so an effect stays a few words wide instead of carrying a whole
// [Obs]; the pointers are valid until the node's next call, unless the
// world holds the call's effects (hold.go), and the world holds or copies
// what it keeps before it calls the node again.
type ObsSlab struct {
	obs []Obs
	// spare is the memory of a previous run's obs, emptied, kept by
	// drop: the first Add takes it. Allocator state, not state (obs is
	// nil until the first add, in a new node and a reset one alike).
	spare []Obs
}

// Reset starts a call: the previous call's observations are dropped.
func (s *ObsSlab) Reset() { s.obs = s.obs[:0] }

// drop empties the slab for a new run, as a new node's: its memory is
// kept aside for the first Add, its observations zeroed (they point to
// records and batches of the run).
func (s *ObsSlab) drop() {
	s.spare = SpareOf(s.obs, s.spare)
	s.obs = nil
}

// Next stores an empty observation of kind k and returns it, to be filled
// in before the next call of Add or Next, with the effect that reports
// it: add without building the observation apart and copying it in.
func (s *ObsSlab) Next(k ObsKind) (*Obs, Out) {
	if s.obs == nil && s.spare != nil {
		s.obs, s.spare = s.spare, nil
	}
	s.obs = append(s.obs, Obs{})
	o := &s.obs[len(s.obs)-1]
	o.Kind = k
	return o, Out{Kind: OutObserve, Obs: o}
}

// Add stores o and returns the effect that reports it. When the slab
// grows, the effects made earlier in the call keep pointing into the old
// array, whose contents do not change.
func (s *ObsSlab) Add(o *Obs) Out {
	if s.obs == nil && s.spare != nil {
		s.obs, s.spare = s.spare, nil
	}
	s.obs = append(s.obs, *o)
	return Out{Kind: OutObserve, Obs: &s.obs[len(s.obs)-1]}
}
