// Package plots draws idemsim's charts with gonum/plot, as PNG or SVG.
//
// It draws results and never runs a simulation: its inputs are its own
// plain types ([Chart], [Series], and the timeline's lanes and arrows), filled in by the caller (the sweep
// engine converts its summaries into them). Every chart has a title, axis
// labels with units, a legend and a footnote; the footnote carries what is
// needed to regenerate the figure (seed range, run count, simulator
// version).
//
// Error policy: drawing functions return an error for an unsupported
// format or a write failure; points with a NaN or infinite coordinate are
// left out rather than reported, so that an undefined rate (0/0) leaves a
// gap.
//
// Output is deterministic: equal charts give byte-identical SVG and PNG
// files.
package plots
