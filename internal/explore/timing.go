package explore

import (
	"encoding/json"
	"fmt"
	"time"
)

// Timing is where an exploration's wall-clock time went. It is never part
// of summary.json or report.md (the same exploration gives the same
// bytes): the command prints it on stderr and writes it to timing.json
// with -out (TimingFile).
type Timing struct {
	// Wall is the search's wall-clock time; Workers the number of runs
	// at once (-parallel).
	Wall    time.Duration
	Workers int
	// Runs adds up the workers' time in the runs, Hashing the part of
	// it the state hashes at choice points took (pruning). Saving and
	// Restoring are the parts of it spent copying states at choice
	// points and copying saved states for branches (-explore-branch;
	// 0 without it).
	Runs, Hashing     time.Duration
	Saving, Restoring time.Duration
	Schedules, States int64
	// Branch counts the states saved and the schedules branched from
	// them and replayed (-explore-branch).
	Branch groupStats
}

// TimingFile is the -out directory's file of where the time went.
const TimingFile = "timing.json"

// Fractions of the workers' time (Workers × Wall), each 0..1: running
// the model (the runs less their hashing, saving and restoring), hashing
// states, saving and restoring, and the rest (idle: waiting for the
// search to hand out schedules, or for the last runs of a level).
type Fractions struct {
	Running   float64 `json:"running"`
	Hashing   float64 `json:"hashing"`
	Saving    float64 `json:"saving"`
	Restoring float64 `json:"restoring"`
	Idle      float64 `json:"idle"`
}

// Fractions splits the workers' time (zeros when it is not measurable).
func (t Timing) Fractions() Fractions {
	total := t.Wall.Seconds() * float64(max(t.Workers, 1))
	if total <= 0 {
		return Fractions{}
	}
	f := Fractions{
		Running:   (t.Runs - t.Hashing - t.Saving - t.Restoring).Seconds() / total,
		Hashing:   t.Hashing.Seconds() / total,
		Saving:    t.Saving.Seconds() / total,
		Restoring: t.Restoring.Seconds() / total,
	}
	f.Idle = max(0, 1-f.Running-f.Hashing-f.Saving-f.Restoring)
	return f
}

// rate returns n per second of wall-clock time (0 when none passed).
func (t Timing) rate(n int64) float64 {
	if t.Wall <= 0 {
		return 0
	}
	return float64(n) / t.Wall.Seconds()
}

// Line is the command's timing line (stderr), e.g. "explored 6,465
// schedules in 0.68s (9569 schedules/s, 1720 distinct states/s,
// -parallel 2); of the workers' time: running 81%, hashing 6%, saving
// 0%, restoring 0%, idle 13%".
func (t Timing) Line() string {
	s := fmt.Sprintf("explored %s schedules in %.2fs (%.0f schedules/s, %.0f distinct states/s, -parallel %d)",
		Count(t.Schedules), t.Wall.Seconds(), t.rate(t.Schedules), t.rate(t.States), t.Workers)
	if t.Runs <= 0 || t.Wall <= 0 {
		return s
	}
	f := t.Fractions()
	pc := func(x float64) int { return int(100*x + 0.5) }
	s += fmt.Sprintf("; of the workers' time: running %d%%, hashing %d%%, saving %d%%, restoring %d%%, idle %d%% (runs %.2fs)",
		pc(f.Running), pc(f.Hashing), pc(f.Saving), pc(f.Restoring), pc(f.Idle), t.Runs.Seconds())
	if b := t.Branch; b.Saves+b.Branched+b.Replayed > 0 {
		s += fmt.Sprintf("; branched %s (%s on messages) from %s saved, replayed %s", Count(b.Branched), Count(b.BranchedMsg), Count(b.Saves), Count(b.Replayed))
	}
	return s
}

// timingJSON is timing.json.
type timingJSON struct {
	WallSeconds     float64 `json:"wall_seconds"`
	Workers         int     `json:"workers"`
	Schedules       int64   `json:"schedules"`
	States          int64   `json:"distinct_states"`
	SchedulesPerSec float64 `json:"schedules_per_second"`
	StatesPerSec    float64 `json:"distinct_states_per_second"`
	RunSeconds      float64 `json:"run_seconds"`
	HashSeconds     float64 `json:"hash_seconds"`
	SaveSeconds     float64 `json:"save_seconds"`
	RestoreSeconds  float64 `json:"restore_seconds"`
	// SavedStates, Branched, BranchedMsg and Replayed: -explore-branch's
	// states saved, schedules run from them (those with a message fault
	// last), and schedules replayed.
	SavedStates int64     `json:"saved_states"`
	Branched    int64     `json:"branched"`
	BranchedMsg int64     `json:"branched_messages"`
	Replayed    int64     `json:"replayed"`
	Fractions   Fractions `json:"fractions"`
}

// JSON returns timing.json: wall-clock times, rates and fractions.
func (t Timing) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(timingJSON{WallSeconds: t.Wall.Seconds(), Workers: t.Workers, Schedules: t.Schedules, States: t.States,
		SchedulesPerSec: t.rate(t.Schedules), StatesPerSec: t.rate(t.States), RunSeconds: t.Runs.Seconds(), HashSeconds: t.Hashing.Seconds(),
		SaveSeconds: t.Saving.Seconds(), RestoreSeconds: t.Restoring.Seconds(), SavedStates: t.Branch.Saves, Branched: t.Branch.Branched, BranchedMsg: t.Branch.BranchedMsg, Replayed: t.Branch.Replayed,
		Fractions: t.Fractions()}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
