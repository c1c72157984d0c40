// Package callpath measures the path one produce round trip takes through
// the simulator's source files: how many times it changes file along the
// calls from the World's handling of the application's send to the
// emission of the record's outcome, and through which files.
//
// The measurement is exact, not sampled. [InstrumentFile] makes an
// instrumented copy of each non-test Go file of the simulated world's
// packages ([WorldFiles]: every package of the module except those under
// internal/, cmd/ and plots/ at its root): each function body, function
// literals included, starts by recording its entry and, deferred, its
// return, and each statement that hands ObsOutcome to a call or a
// composite literal (the World making a record's outcome observation)
// first records a mark. The insertions stay on their lines, so the
// copies keep the originals' line numbers.
// The copies replace the originals through go build -overlay, together
// with two packages that exist only in the overlay: a recorder and a
// driver that runs one simulation with recording on and prints what was
// recorded. The files on disk are never written.
//
// [Window] reads the recorded calls and returns as steps: an entry is a
// step into the called function's file, a return a step back into the
// caller's. From the entry of World.appSend to the first outcome mark
// after it, each pair of consecutive steps in different files is one
// transition. Only the instrumented files appear: a call through the
// standard library (a sort calling back a closure) goes straight from
// the caller's file to the callee's. The same window can leave out the
// steps inside given functions: [Measure] counts it once with every
// step and once without what the readers (the trace writer, the
// checkers, the counters) do inside World.fire.
//
// [Measure] does all of it for a module root, so the same measurement
// runs on any checkout of the simulator, whatever its package layout, as
// long as its catalogue has the scenario and its scenarios package has
// Lookup, Spec (with Scenario, Seed and Sets of Key/Value pairs) and Run.
// The driver fills Spec.Sets by reflection for that reason.
//
// The package imports the standard library only.
package callpath
