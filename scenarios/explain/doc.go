// Package explain turns a run into something to look at: its compact
// event log ([Log], recorded by a [Recorder] that reads the run's
// observation stream), a Mermaid sequence diagram of it
// ([WriteMermaid]), and the smallest fault plan that still fails
// ([Shrink]).
//
// It reads runs through package scenarios' exported API only: a
// [world.Reader] made from the run's [world.Layout], and
// [scenarios.Run].
package explain
