// Package faults is the fault-plan language: typed, timed actions (pause,
// crash, restart, partitions and heals, numbered drops and rejects, clock
// drift) and a plan's end. A plan prints as text ([Plan.String]) and
// parses back ([Parse]); [Generate] draws one from a seed. The format is
// documented in docs/plans.md.
//
// # One type per action
//
// Each kind of action is one type in a file of its own ([Pause] in
// pause.go, [Cut] in cut.go, ...), implementing [Action]: it prints its
// plan-text line and has a parser for it (which the file registers from
// an init function; registry.go), names its nodes, checks itself against
// a world's nodes, carries itself out on a [Target] (the world), tells a
// timeline whether it opens an interval and what closes it
// ([Action.Span], [Action.Closes]), and offers a shrinker its [Knob].
// Code outside this package never switches on the kind of an action; it
// calls these methods. docs/plans.md walks through adding a kind.
//
// A plan pairs each action with its time ([Timed]): the time is the
// plan's, not the action's, so a shrinker moves actions in time without
// knowing their kind. [Plan.Check] checks a plan against a world: each
// action on its own ([Plan.CheckNodes]), then along time
// ([Plan.CheckSequence]: time order, crashes and restarts, heals); the
// world adds its time limit ([Plan.CheckLimit]).
//
// # Determinism
//
// [Generate] draws only from the *rand.Rand it is given, which the world
// derives from the run seed with the stream id "faults", so a plan never
// shifts the network's or the nodes' random draws.
package faults
