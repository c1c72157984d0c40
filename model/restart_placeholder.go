package model

import "github.com/idemsim/idemsim/sim"

// Restart restarts the partition after a broker crash (clean=false) or a
// clean shutdown (clean=true), keeping its log.
//
// placeholder until the broker branch lands
func (p *Partition) Restart(now sim.Time, clean bool) {}
