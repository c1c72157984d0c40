package main

import (
	"crypto/rand"
	"encoding/binary"
	"io"
)

// maxRandomSeed is the largest seed simulate draws itself (2^53-1): every
// random seed, printed in a report, a reproduce line or -json, survives
// JSON tools that read numbers as doubles (jq). A seed given with -seed
// may be anything up to 2^64-1; above 2^53 the JSON text is exact, but
// such tools round it.
const maxRandomSeed = 1<<53 - 1

// seedSource is where random seeds come from (a variable for tests).
var seedSource io.Reader = rand.Reader

// randomSeed draws a seed in 0..maxRandomSeed.
func randomSeed() (uint64, error) {
	var b [8]byte
	if _, err := io.ReadFull(seedSource, b[:]); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]) & maxRandomSeed, nil
}
