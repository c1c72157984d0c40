package sim

import (
	"strconv"
	"time"
)

// Time is a point in simulated time: nanoseconds since the start of the run.
// It is never negative in a run.
type Time int64

// Add returns t+d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Duration returns t as a duration since the start of the run.
func (t Time) Duration() time.Duration { return time.Duration(t) }

// String formats t as seconds with nanosecond precision, e.g. "12.000250000s".
func (t Time) String() string { return string(t.AppendTo(nil)) }

// AppendTo appends t formatted as by [Time.String] to b.
func (t Time) AppendTo(b []byte) []byte {
	v := int64(t)
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	b = strconv.AppendInt(b, v/1e9, 10)
	b = append(b, '.')
	frac := v % 1e9
	// Nine digits, zero padded.
	var d [9]byte
	for i := 8; i >= 0; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	b = append(b, d[:]...)
	return append(b, 's')
}
