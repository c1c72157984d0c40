package world

import (
	"strconv"

	simnet "github.com/idemsim/idemsim/net"
)

// evKind is the kind of a world event.
type evKind uint8

const (
	// evAppSend: application app sends its next record.
	evAppSend evKind = iota
	// evDeliver: message msg arrives at node.
	evDeliver
	// evWake: node's wake-up with token n.
	evWake
	// evStart: producer instance node starts.
	evStart
	// evFault: fault-plan action n takes effect.
	evFault
	// evResume: the pause of node set by fault-plan action n ends.
	evResume
	// evDisconnect: producer instance node learns that its connection
	// tok.Conn to destination n-1 broke.
	evDisconnect
	// evMetaFlap: the topic's metadata flaps (scenario seqreuse).
	evMetaFlap
	// evHandled: server node finished handling the request it read on
	// connection tok.Conn (after broker.processing.time; world_handler.go).
	evHandled
	// evUnstall: the stall of server node set by fault-plan action n ends.
	evUnstall
	// evAppResume: exactly-once instance node fetches its application's
	// committed input position (again) and resumes there.
	evAppResume
	// evReplStart: the controller and the brokers start replication
	// (world_repl.go).
	evReplStart
	// evReplDeliver: replication message msg arrives at node
	// (world_repl.go).
	evReplDeliver
	// evShutdown: broker node stops, to restart at n-1, or restarts (n=0).
	evShutdown
	// evAppPoll: the poll timer n of instance node's consumer
	// (world_input.go).
	evAppPoll
)

var evNames = [...]string{"app-send", "deliver", "wake", "start", "fault", "resume", "disconnect", "metaflap", "handled", "unstall", "app-resume", "repl-start", "repl-deliver", "shutdown", "app-poll"}

// Event is one pending world event: a small value, so the loop's queue holds
// it without allocating.
type Event struct {
	kind evKind
	// bg marks a background event (a server's housekeeping wake-up): it
	// runs in order but does not keep the run alive ([sim.Loop.Background]).
	bg   bool
	node int32  // instance or destination node
	app  int32  // application (evAppSend)
	gen  uint32 // node incarnation (evWake, evDisconnect)
	msg  uint64 // message id (evDeliver)
	n    uint64 // wake token, fault index, destination+1
	tok  simnet.Token
	// (Fields in this order pack an Event into 56 bytes: the queue moves
	// them about on every push and pop.)
}

// AppendDescription appends e.g. "deliver m17 to=2".
func (e Event) AppendDescription(b []byte) []byte {
	b = append(b, evNames[e.kind]...)
	switch e.kind {
	case evAppSend:
		b = append(b, " app="...)
		b = strconv.AppendInt(b, int64(e.app), 10)
	case evDeliver:
		b = append(b, " m"...)
		b = strconv.AppendUint(b, e.msg, 10)
		b = append(b, " to="...)
		b = strconv.AppendInt(b, int64(e.node), 10)
	case evWake, evStart, evDisconnect, evHandled, evAppResume, evAppPoll:
		b = append(b, " node="...)
		b = strconv.AppendInt(b, int64(e.node), 10)
	case evFault, evResume, evUnstall:
		b = append(b, " #"...)
		b = strconv.AppendUint(b, e.n, 10)
	}
	return b
}
