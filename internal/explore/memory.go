package explore

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/idemsim/idemsim/scenarios/world"
)

// The explorer's memory is counted from the sizes of what it stores, not
// read from the runtime, so that where a bounded search stops is the same
// on every run, for every -parallel and every shard (docs/explore.md,
// "Memory"). What it stores:
//
//   - the visited set: one entry per distinct state met (a state hash and
//     the schedule that explores on from it), charged at twice its key
//     and value (visitBytes): a Go map holds its slots between half and
//     seven eighths full, and while it grows it holds both tables;
//   - the frontier: each run schedule of the last internal level with its
//     choice points after its last fault (the nodes up at a time point,
//     shared between points that list the same nodes), its violations,
//     and its sched (schedBytes each, kept for as long as the visited set
//     names it);
//   - with branching (Config.Branch), a saved state at a time: a worker
//     saves the state of a parent at one time choice point, runs the
//     children that branch there from it and lets it go before the
//     next; the peak
//     counts the largest state saved once, whatever -parallel is, so
//     that it stays the same for every -parallel.
//
// What it does not count: a worker's run under way (one World per
// worker, freed after each run), the hash caches (one per worker, per
// type facts), the schedules handed to workers and not yet run (at most
// four per worker), the counterexamples kept (one per invariant) and the
// collector's headroom (with GOGC=100 the heap may grow to about twice
// the live bytes before a collection).

// visitBytes is what one visited state costs: twice its key and value.
const visitBytes = 2 * int64(unsafe.Sizeof(world.StateHash{})+unsafe.Sizeof(visit{}))

// schedBytes is what one schedule costs while the visited set or the
// frontier names it.
const schedBytes = int64(unsafe.Sizeof(sched{}))

// nodeBytes is a frontier schedule's fixed part: its node and outcome.
const nodeBytes = int64(unsafe.Sizeof(node{}) + unsafe.Sizeof(outcome{}))

// pointBytes is one choice point's record.
const pointBytes = int64(unsafe.Sizeof(point{}))

// DefaultMemory is the bound simulate -explore applies without
// -explore-memory: 2 GiB counted, which with the collector's headroom is
// about 4 GiB of the process's memory, a quarter of a 16 GB machine.
const DefaultMemory = 2 << 30

// keptBytes returns what the frontier keeps of a run: its outcome with
// its choice points (each node list counted once: the recorder shares a
// list between points that list the same nodes) and violations, and
// its sched.
func (o *outcome) keptBytes() int64 {
	n := nodeBytes + schedBytes + int64(cap(o.points))*pointBytes + o.upBytes
	for _, v := range o.violated {
		n += int64(unsafe.Sizeof(v)) + int64(len(v.Detail))
	}
	return n
}

// upListBytes is what a list of nodes up and their roles costs (the
// node names are the World's strings, shared).
func upListBytes(up []string, roles []world.Role) int64 {
	return int64(cap(up))*int64(unsafe.Sizeof("")) + int64(cap(roles))*int64(unsafe.Sizeof(world.Role(0)))
}

// Memory is what an exploration kept, counted from the sizes of what it
// stored (deterministic: the same for every run, -parallel and shard
// count of one search).
type Memory struct {
	// Bound is the bound in bytes (0: none).
	Bound int64 `json:"bound_bytes"`
	// Peak is the most the search kept at once, in bytes: the visited
	// set, the frontier the level ran from and the frontier it kept.
	Peak int64 `json:"peak_bytes"`
	// StateBytes is what one visited state costs, in bytes.
	StateBytes int64 `json:"bytes_per_state"`
	// FrontierSchedules and FrontierBytes are the largest frontier
	// (the schedules of one level kept with their choice points).
	FrontierSchedules int64 `json:"frontier_schedules"`
	FrontierBytes     int64 `json:"frontier_bytes"`
	// SavedStates is the number of states saved to branch from
	// (-explore-branch; 0 when the explorer replays every schedule);
	// SavedStateBytes the largest of them, in bytes (its copy's
	// allocations), counted in Peak and by the bound.
	SavedStates     int64 `json:"saved_states"`
	SavedStateBytes int64 `json:"saved_state_bytes,omitempty"`
}

// String is the report's memory line, e.g. "1.2 MiB at most of a 2 GiB
// bound: 80 B a state, the largest frontier 82 schedules in 1.1 MiB
// (13.7 KiB each), no saved states".
func (m Memory) String() string {
	var b strings.Builder
	b.WriteString(Size(m.Peak) + " at most")
	if m.Bound > 0 {
		b.WriteString(" of a " + Size(m.Bound) + " bound")
	} else {
		b.WriteString(", no bound")
	}
	fmt.Fprintf(&b, ": %d B a state", m.StateBytes)
	if m.FrontierSchedules > 0 {
		fmt.Fprintf(&b, ", the largest frontier %s in %s (%s each)", plural64(m.FrontierSchedules, "schedule"), Size(m.FrontierBytes), Size(m.FrontierBytes/m.FrontierSchedules))
	}
	if m.SavedStates == 0 {
		b.WriteString(", no saved states")
	} else {
		fmt.Fprintf(&b, ", %s saved (one at a time per worker) of at most %s", plural64(m.SavedStates, "state"), Size(m.SavedStateBytes))
	}
	return b.String()
}

// Size formats a byte count: 512 B, 64 KiB, 1.5 MiB, 2 GiB.
func Size(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f := float64(n)
	u := 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 || f == float64(int64(f)) {
		return strconv.FormatFloat(f, 'f', 0, 64) + " " + units[u]
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + units[u]
}

// ParseSize reads a memory size: an integer of bytes, or with a unit
// B, KiB, MiB, GiB, TiB (powers of 1024) or KB, MB, GB, TB (powers of
// 1000), e.g. 512MiB, 2GiB; 0 is no bound.
func ParseSize(s string) (int64, error) {
	bad := fmt.Errorf("%q is not allowed (allowed: a size such as 512MiB, 2GiB or 4GB; units B, KiB, MiB, GiB, TiB, KB, MB, GB, TB; 0 for no bound)", s)
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, bad
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, bad
	}
	mult := map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[strings.TrimSpace(t[i:])]
	if mult == 0 || n > (1<<62)/mult {
		return 0, bad
	}
	return n * mult, nil
}
