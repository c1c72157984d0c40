package simtest

import (
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestInteraction runs the scripts in testdata. NB: after a behaviour
// change, run with -rewrite and inspect the diff.
func TestInteraction(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		e := New(1)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return e.Handle(t, d)
		})
	})
}
