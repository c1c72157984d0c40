package scenarios

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

func TestZZMemProf(t *testing.T) {
	name := os.Getenv("MEMPROF_SC")
	if name == "" {
		t.Skip()
	}
	sc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	sets := []params.KV{{Key: "records", Value: "100000"}}
	if name == "crossbump" {
		sets = append(sets, params.KV{Key: "partitions", Value: "64"}, params.KV{Key: "send.interval.ms", Value: "0"})
	}
	world.SetRunEndHook(func() {
		runtime.GC()
		f, _ := os.Create("/tmp/memrec/heap.prof")
		pprof.WriteHeapProfile(f)
		f.Close()
	})
	defer world.SetRunEndHook(nil)
	if _, err := Run(Spec{Scenario: sc, Seed: 1, Sets: sets}); err != nil {
		t.Fatal(err)
	}
}
