package callpath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Run is the one simulation a measurement records.
type Run struct {
	Scenario string
	Seed     uint64
	// Sets are key=value parameter overrides, applied in order as
	// -set would.
	Sets []string
	// From is the function whose first entry opens the window.
	From string
	// Readers are the functions that hand an observation to the
	// run's readers (the trace writer and its hash, the checkers, the
	// counters): the steps inside them are cut from
	// [Measurement.Core].
	Readers []string
}

// RoundTrip is the run the round trip is measured on: two records of
// ackloss with idempotence on (the default), no response loss, so no
// fault plan acts and nothing is retried, and one replica, so no
// controller and no replication. The first record's round trip includes
// the producer's InitProducerId exchange; the second's is the steady
// state, a send to a producer that has its id.
var RoundTrip = Run{
	Scenario: "ackloss",
	Seed:     1,
	Sets:     []string{"records=2", "net.response_loss=0", "replication.factor=1"},
	From:     "World.appSend",
	Readers:  []string{"World.fire"},
}

// Result is what the driver reports of the run it recorded, read from
// the JSON of the run's result.
type Result struct {
	Events   int64            `json:"events"`
	Sent     int64            `json:"sent"`
	Acked    int64            `json:"acked"`
	Failed   int64            `json:"failed"`
	Appended int64            `json:"appended"`
	Errors   map[string]int64 `json:"errors"`
	Net      struct {
		RequestsSent  int64 `json:"requests_sent"`
		ResponsesSent int64 `json:"responses_sent"`
		RequestsLost  int64 `json:"requests_lost"`
		ResponsesLost int64 `json:"responses_lost"`
		Dropped       int64 `json:"dropped"`
	} `json:"net"`
	Params []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"params"`
}

// Param returns the run's value of parameter key ("" if it has none).
func (r *Result) Param(key string) string {
	for _, kv := range r.Params {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// Measurement is a measured run: what it did and its path.
type Measurement struct {
	Result Result
	// Events is everything the run recorded, the window's and the
	// rest.
	Events []Event
	// Marks counts the outcome marks of the whole run.
	Marks int
	// Path is every step of the first record's window; Core the same
	// without the steps inside run.Readers.
	Path, Core *Path
	// Steady and SteadyCore are the same for the second record's
	// window (from the second entry of run.From to the second outcome
	// mark), nil when the run has one record.
	Steady, SteadyCore *Path
}

// The overlay's own packages, below the module path: the recorder the
// instrumented files import and the driver's main package. Neither
// exists on disk.
const (
	recDir    = "internal/callpathrec"
	driverDir = "internal/callpathmain"
)

// Measure instruments the simulated world's packages of the module at
// root (into a directory under tmp), builds the driver with go build
// -overlay, runs it and returns the window of run.From to the record's
// outcome mark, with and without what the readers do. Nothing under root
// is written.
func Measure(root, tmp string, run Run) (*Measurement, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	mod, err := ModulePath(root)
	if err != nil {
		return nil, err
	}
	files, err := WorldFiles(root)
	if err != nil {
		return nil, err
	}
	replace := map[string]string{}
	write := func(rel string, src []byte) error {
		dst := filepath.Join(tmp, "src", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		replace[filepath.Join(root, filepath.FromSlash(rel))] = dst
		return os.WriteFile(dst, src, 0o644)
	}
	n := 0
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		out, changed, err := InstrumentFile(rel, src, mod+"/"+recDir)
		if err != nil {
			return nil, err
		}
		if !changed {
			continue
		}
		n++
		if err := write(rel, out); err != nil {
			return nil, err
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no function to instrument", root)
	}
	if err := write(recDir+"/rec.go", []byte(recorderSource)); err != nil {
		return nil, err
	}
	if err := write(driverDir+"/main.go", driverSource(mod, run)); err != nil {
		return nil, err
	}
	ov, err := json.Marshal(struct{ Replace map[string]string }{replace})
	if err != nil {
		return nil, err
	}
	ovPath := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		return nil, err
	}
	bin := filepath.Join(tmp, "driver")
	// The module's packages compile without optimization (-N -l): the
	// source is instrumented, so no recorded call changes, and the
	// build is faster.
	build := exec.Command("go", "build", "-overlay", ovPath, "-gcflags="+mod+"/...=-N -l", "-o", bin, "./"+driverDir)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build -overlay: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	drive := exec.Command(bin)
	drive.Stdout, drive.Stderr = &stdout, &stderr
	if err := drive.Run(); err != nil {
		return nil, fmt.Errorf("the driver: %v\n%s", err, stderr.Bytes())
	}
	events, other, err := ParseEvents(&stdout)
	if err != nil {
		return nil, err
	}
	m := &Measurement{Events: events}
	for _, line := range other {
		if js, ok := strings.CutPrefix(line, "result\t"); ok {
			if err := json.Unmarshal([]byte(js), &m.Result); err != nil {
				return nil, fmt.Errorf("the driver's result: %v", err)
			}
		}
	}
	for _, e := range events {
		if e.Kind == 'M' && e.What == OutcomeMark {
			m.Marks++
		}
	}
	if m.Path, err = Window(events, run.From, OutcomeMark); err != nil {
		return nil, err
	}
	if m.Core, err = Window(events, run.From, OutcomeMark, run.Readers...); err != nil {
		return nil, err
	}
	if m.Marks < 2 {
		return m, nil
	}
	if m.Steady, err = WindowN(events, 2, run.From, OutcomeMark); err != nil {
		return nil, err
	}
	if m.SteadyCore, err = WindowN(events, 2, run.From, OutcomeMark, run.Readers...); err != nil {
		return nil, err
	}
	return m, nil
}

// recorderSource is the recorder package of the overlay. It keeps events
// in memory while recording is on and prints them at the end, so the
// instrumented functions do no I/O.
const recorderSource = `// Package callpathrec records the calls of a build instrumented by
// internal/callpath. It exists only in that build's overlay.
package callpathrec

import (
	"bufio"
	"fmt"
	"io"
)

type event struct {
	kind           byte
	file, fn, what string
}

var (
	on     bool
	events []event
)

// Start turns recording on.
func Start() { on = true }

// Stop turns recording off.
func Stop() { on = false }

// Enter records the entry of fn, in file; Exit, given what Enter
// returned, its return.
func Enter(file, fn string) bool {
	if !on {
		return false
	}
	events = append(events, event{kind: 'E', file: file, fn: fn})
	return true
}

// Exit records a return (of a function whose entry was recorded).
func Exit(entered bool) {
	if entered {
		events = append(events, event{kind: 'X'})
	}
}

// Mark records that fn, in file, constructs what.
func Mark(file, fn, what string) {
	if on {
		events = append(events, event{kind: 'M', file: file, fn: fn, what: what})
	}
}

// Write prints the events, one a line.
func Write(w io.Writer) error {
	b := bufio.NewWriter(w)
	for _, e := range events {
		switch e.kind {
		case 'E':
			fmt.Fprintf(b, "E\t%s\t%s\n", e.file, e.fn)
		case 'X':
			fmt.Fprintf(b, "X\n")
		case 'M':
			fmt.Fprintf(b, "M\t%s\t%s\t%s\n", e.file, e.fn, e.what)
		}
	}
	return b.Flush()
}
`

// driverSource is the driver's main package: it runs the one simulation
// with recording on and prints the run's result as JSON, then the
// events.
func driverSource(mod string, run Run) []byte {
	var sets strings.Builder
	for _, s := range run.Sets {
		k, v, _ := strings.Cut(s, "=")
		fmt.Fprintf(&sets, "\t\t{%q, %q},\n", k, v)
	}
	return []byte(fmt.Sprintf(`package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"

	rec %q
	"%s/scenarios"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "callpath driver:", err)
		os.Exit(1)
	}
}

func run() error {
	sc, err := scenarios.Lookup(%q)
	if err != nil {
		return err
	}
	spec := scenarios.Spec{Scenario: sc, Seed: %d}
	// Spec.Sets is a slice of Key/Value pairs whose type depends on the
	// checkout.
	sets := reflect.ValueOf(&spec).Elem().FieldByName("Sets")
	for _, kv := range [][2]string{
%s	} {
		e := reflect.New(sets.Type().Elem()).Elem()
		e.FieldByName("Key").SetString(kv[0])
		e.FieldByName("Value").SetString(kv[1])
		sets.Set(reflect.Append(sets, e))
	}
	rec.Start()
	res, err := scenarios.Run(spec)
	rec.Stop()
	if err != nil {
		return err
	}
	js, err := json.Marshal(res)
	if err != nil {
		return err
	}
	fmt.Printf("result\t%%s\n", js)
	return rec.Write(os.Stdout)
}
`, mod+"/"+recDir, mod, run.Scenario, run.Seed, sets.String()))
}
