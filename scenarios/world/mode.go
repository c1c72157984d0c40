package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// mode is how the World runs, chosen once when it is built: a run, whose
// messages and time the network's draws and the event loop decide
// (runMode), or a scripted world, whose test script decides them
// (scriptMode, script.go). Where the two differ the World asks its mode;
// it never asks whether it is scripted.
type mode interface {
	// route is the fate pipeline's last stage (fate.go): it places
	// message id, whose network send is s and whose wire is wp, from
	// node from to node to, and returns the wire as the plan's rules
	// marked it. It takes and returns values, not pointers, so that
	// nothing a message carries escapes through the interface call.
	route(w *World, now sim.Time, s simnet.Sent, wp wire, id uint64, from, to simnet.NodeID) wire
	// connsDown is told that connections may have closed or broken.
	connsDown(w *World, now sim.Time)
	// reserve sizes the node table before its names are made.
	reserve(w *World)
	// serverSend carries server n's request m to server to, its
	// destination dest.
	serverSend(w *World, now sim.Time, n, to simnet.NodeID, dest int32, m model.Message)
	// drivesApps reports whether the World drives the applications'
	// takeovers, input resumes and restarts (a run), or the script does.
	drivesApps() bool
	// replicated reports whether the run may keep more than one copy of
	// a partition (replication.factor).
	replicated() bool
}

// runMode is every run's mode: it has no state.
type runMode struct{}

// theRunMode is the mode of every World a Runner builds.
var theRunMode runMode

func (*runMode) reserve(*World) {}

// serverSend goes over the network, on the server's connection to the
// destination (world_server.go).
func (*runMode) serverSend(w *World, now sim.Time, n, to simnet.NodeID, dest int32, m model.Message) {
	w.serverSend(now, n, to, dest, m)
}

func (*runMode) drivesApps() bool { return true }
func (*runMode) replicated() bool { return true }

// scriptMode is a scripted world's mode (script.go).
type scriptMode struct{ st *script }

// reserve reserves the slots of the producer instances the script adds
// as it goes, so that the node table, the network and the readers are
// sized once.
func (m *scriptMode) reserve(w *World) { m.st.reserve(w) }

// serverSend hands the request to its server at once: the script decides
// about client messages only.
func (*scriptMode) serverSend(w *World, now sim.Time, n, to simnet.NodeID, _ int32, m model.Message) {
	w.stepServer(now, to, n, m, w.pushRoute(route{client: n, instant: true}))
}

func (*scriptMode) drivesApps() bool { return false }

// replicated is false: a scripted world keeps one copy of each partition.
// Its script decides about client messages only, and judges the run at
// any point, where a replicated run is judged once, after it settled.
func (*scriptMode) replicated() bool { return false }
