package client

import (
	"time"

	"github.com/idemsim/idemsim/sim"
)

// ms returns n milliseconds as a time.
func ms(n int64) sim.Time { return sim.Time(n * int64(time.Millisecond)) }
