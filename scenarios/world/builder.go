package world

import (
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/sim"
)

// Builder is what a catalogue scenario's build function may do to the
// world it is built into, before the run starts: read the run's
// configuration, add applications and their producer instances, and
// schedule the world events a scenario stages. The topology (brokers,
// coordinators, partitions) comes from the parameters, not from the
// builder.
type Builder struct {
	w *World
}

// App is an application a [Builder] added: a stream of records with
// stable ids, sent through its current producer instance.
type App struct {
	a *app
}

// Config returns the run's typed configuration.
func (b Builder) Config() *params.Config { return b.w.cfg }

// AddApp adds an application (app0, app1, ... in order) and its first
// producer instance, which starts at start.
func (b Builder) AddApp(start sim.Time) App { return App{b.w.addApp(start)} }

// AddInstance adds a producer instance of a (a replacement, such as a
// zombie's successor) that starts at start. Instances are named p1, p2,
// ... in the order they are added.
func (b Builder) AddInstance(a App, start sim.Time) { b.w.addInstance(a.a, start) }

// MetaFlap schedules a flap of the topic's metadata at at: the
// producers' view of the partition leaders is refreshed as if a
// metadata response had gone missing and come back.
func (b Builder) MetaFlap(at sim.Time) { b.w.loop.At(at, Event{kind: evMetaFlap}) }
