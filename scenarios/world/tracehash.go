package world

import "github.com/idemsim/idemsim/sim"

// TraceHashScheme is the scheme tag every trace hash carries ("v2").
const TraceHashScheme = sim.HashScheme

// ParseTraceHash reads a trace hash as [Result.TraceHash] has it ("v2:"
// and 16 hex digits); a hash of another scheme, such as an untagged one
// from an older version, is an error that says so.
func ParseTraceHash(s string) (uint64, error) { return sim.ParseHash(s) }

// FormatTraceHash tags a 64-bit hash value with the trace hash scheme, as
// [ParseTraceHash] reads it.
func FormatTraceHash(h uint64) string { return sim.HashString(h) }
