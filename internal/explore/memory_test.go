package explore

import (
	"bytes"
	"strings"
	"testing"
)

// TestMemoryBound: a bound below what an exploration keeps stops it at
// the same point for every -parallel (byte-identical summaries), with
// the result incomplete ("memory") and what it kept within the bound; a
// bound at what the unbounded search kept changes nothing but the bound.
func TestMemoryBound(t *testing.T) {
	base := cfgFor(t, "ackloss", 2, "records=3")
	base.All = true
	free := explore(t, base)
	if free.Stop != "" || free.Memory.Peak <= 0 || free.Memory.StateBytes != visitBytes || free.Memory.FrontierSchedules != free.Levels[1].Schedules {
		t.Fatalf("unbounded: stop %q, memory %+v, level 1 %+v", free.Stop, free.Memory, free.Levels[1])
	}
	for _, frac := range []int64{4, 2} {
		bound := free.Memory.Peak / frac
		var first []byte
		for _, p := range []int{1, 2, 3} {
			c := base
			c.Memory, c.Parallel = bound, p
			r := explore(t, c)
			if r.Verdict != "incomplete" || r.Stop != "memory" || !strings.Contains(r.Statement, "incomplete (memory bound reached: ") {
				t.Fatalf("bound %d: verdict %s stop %q: %s", bound, r.Verdict, r.Stop, r.Statement)
			}
			if r.Memory.Peak > bound || r.Memory.Bound != bound {
				t.Errorf("bound %d: kept %+v", bound, r.Memory)
			}
			if r.Schedules >= free.Schedules || r.Schedules+r.Remaining > free.Schedules {
				t.Errorf("bound %d: %d schedules, %d remaining; unbounded %d", bound, r.Schedules, r.Remaining, free.Schedules)
			}
			b, err := r.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = b
				t.Logf("bound %d: %s; memory: %s", bound, r.Statement, r.Memory)
			} else if !bytes.Equal(first, b) {
				t.Errorf("bound %d: -parallel %d gives another summary", bound, p)
			}
		}
	}
	c := base
	c.Memory = free.Memory.Peak
	r := explore(t, c)
	a, _ := free.JSON()
	r.Memory.Bound = 0
	b, _ := r.JSON()
	if !bytes.Equal(a, b) {
		t.Errorf("a bound at the unbounded peak changed the result: %s", r.Statement)
	}
}

// TestMemoryBoundShards: each shard of a bounded exploration stops at the
// same point for every -parallel.
func TestMemoryBoundShards(t *testing.T) {
	base := cfgFor(t, "ackloss", 2, "records=3", "enable.idempotence=false")
	base.All = true
	for i := range 2 {
		var first []byte
		for _, p := range []int{1, 2} {
			c := base
			c.Parallel, c.Memory = p, 150<<10
			c.Shard.Index, c.Shard.Count = i, 2
			b, err := explore(t, c).JSON()
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = b
			} else if !bytes.Equal(first, b) {
				t.Errorf("shard %d/2: -parallel %d gives another summary", i, p)
			}
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"0", 0}, {"4096", 4096}, {"512MiB", 512 << 20}, {"2GiB", 2 << 30}, {"64KiB", 64 << 10}, {"4GB", 4e9}, {"10B", 10}, {"1TiB", 1 << 40}} {
		if got, err := ParseSize(c.in); err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "GiB", "-1", "2 gib", "1.5GiB", "12XB", "99999999999TiB"} {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), "is not allowed (allowed: ") {
			t.Errorf("ParseSize(%q): error %v", in, err)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 512: "512 B", 64 << 10: "64 KiB", 3 << 19: "1.5 MiB", 2 << 30: "2 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestTimingFractions: the workers' time splits into fractions that add
// up to one, and the line names each.
func TestTimingFractions(t *testing.T) {
	r := explore(t, cfgFor(t, "ackloss", 1, "records=3"))
	tm := r.Timing
	if tm.Wall <= 0 || tm.Workers != 2 || tm.Runs <= 0 || tm.Schedules != r.Schedules || tm.States != r.States {
		t.Fatalf("timing %+v", tm)
	}
	f := tm.Fractions()
	sum := f.Running + f.Hashing + f.Saving + f.Restoring + f.Idle
	if f.Running <= 0 || f.Hashing <= 0 || f.Saving != 0 || f.Restoring != 0 || sum < 0.999 || sum > 1.001+max(0, -f.Idle) {
		t.Errorf("fractions %+v (sum %v)", f, sum)
	}
	for _, w := range []string{"schedules/s", "distinct states/s", "running ", "hashing ", "saving 0%", "restoring 0%", "idle "} {
		if !strings.Contains(tm.Line(), w) {
			t.Errorf("timing line %q lacks %q", tm.Line(), w)
		}
	}
	if b, err := tm.JSON(); err != nil || !bytes.Contains(b, []byte(`"fractions"`)) {
		t.Errorf("timing.json: %s %v", b, err)
	}
	if b, _ := r.JSON(); bytes.Contains(b, []byte("wall")) || bytes.Contains(b, []byte("fractions")) {
		t.Errorf("summary.json holds wall-clock times")
	}
}
