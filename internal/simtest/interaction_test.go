package simtest

import (
	"flag"
	"os"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// update re-records the scripts' expected output, as -update does for
// every golden file of the project; it sets datadriven's own -rewrite.
var update = flag.Bool("update", false, "re-record the expected output of testdata/*.txt (datadriven's -rewrite)")

func TestMain(m *testing.M) {
	flag.Parse()
	if *update {
		if err := flag.Set("rewrite", "true"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// TestInteraction runs the scripts in testdata. After a behaviour change,
// run it with -update and review the diff.
func TestInteraction(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		e := New(1)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return e.Handle(t, d)
		})
	})
}
