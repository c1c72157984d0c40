// Package htmlpage turns a run into one self-contained HTML page: a
// swimlane sequence diagram of every node (each message an arrow from its
// send to its arrival, faults as bands, coordinator states and epoch
// bumps as marks), the violation's record path highlighted, and the
// run's trace in a side panel kept in step with the diagram
// (docs/html.md). It also writes a sweep's index page.
//
// The page is a reader of the run's observation stream like the trace
// writer and the explain log: [Record] adds a [world.Reader] to a
// [scenarios.Spec], and once the run ended [Recorder.Run] holds what the
// page draws. [Write] renders it with the page's script and styles,
// which are ordinary files in assets/ embedded at build time. The same
// run gives the same bytes.
package htmlpage
