package htmlpage

import (
	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Run is what a run's page draws, read from its observation stream.
// Times are simulated time from the run's start; every item names the
// trace line it came from (an index into Lines, -1 for none).
type Run struct {
	// Lanes are the swim lanes, top to bottom: the applications, then
	// the nodes in node-id order (producer instances, brokers,
	// coordinators, the controller).
	Lanes []Lane
	// End is when the run ended; PlanEnd when its fault phase ended.
	End, PlanEnd sim.Time
	// Lines is the run's trace, one line per entry, as -trace prints it
	// (without the indent).
	Lines []string
	// Kinds are the message kinds (a message description's first word
	// without its number: "Produce", "InitProducerIdResp"), in order of
	// first use; Msg.Kind indexes it.
	Kinds []string
	Msgs  []Msg
	Marks []Mark
	Bands []Band
	Calls []Call
	// Records are the application records and the items on their path
	// (send, requests and responses that carry them, appends, markers,
	// acknowledgements), by increasing record id.
	Records []RecordPath
	// Violations are the run's verdicts, as [scenarios.Result] reports
	// them.
	Violations []check.Violation
	// Aggregated is the note the page shows when it collapsed items
	// ([Aggregate]), "" otherwise.
	Aggregated string
}

// Lane is one swim lane.
type Lane struct {
	Name string
	// Kind is "app", "producer", "broker", "coordinator" or
	// "controller".
	Kind string
}

// Msg flags.
const (
	// MsgLost: the message never arrived (dropped at its send or lost on
	// the wire); Fate says why.
	MsgLost = 1 << iota
	// MsgLate: the message's transit took more than [LateFactor] times
	// the run's median transit.
	MsgLate
	// MsgResponse: the message is a response.
	MsgResponse
)

// LateFactor is how many times the run's median transit a message's
// transit must exceed for the page to mark it late.
const LateFactor = 10

// Msg is one message on the network: an arrow from Sent on lane From to
// Arrive on lane To (for a lost message, where and when it was lost).
type Msg struct {
	Sent, Arrive sim.Time
	From, To     int32
	// Kind indexes Run.Kinds.
	Kind int32
	// Line is the send's trace line, ArriveLine the arrival's or loss's
	// (-1 when it has none: a message dropped at its send).
	Line, ArriveLine int32
	Flags            uint8
	// Text is the message's description; Fate why it was lost.
	Text, Fate string
}

// Mark classes: what a mark on a lane stands for.
const (
	MarkOther     = iota // any other trace line about a node
	MarkState            // a coordinator installed a transaction state
	MarkEpoch            // a coordinator handed out a new producer epoch
	MarkAppend           // a broker appended a batch
	MarkDuplicate        // a broker found a batch a duplicate
	MarkReject           // a broker refused a batch
	MarkMarker           // a broker wrote (or refused) a transaction marker
	MarkFault            // an instant fault-plan action (a drop, a drift)
	MarkNote             // a node's note (a state change, an error)
	MarkViolation        // an invariant's violation
)

// Mark is a point on a lane.
type Mark struct {
	At    sim.Time
	Lane  int32
	Class uint8
	Line  int32
	Text  string
}

// Band is a fault's interval on a lane (a pause, a crash, one side of a
// partition, a stall).
type Band struct {
	From, Until sim.Time
	Lane        int32
	Line        int32
	Text        string
}

// Call classes.
const (
	CallSend = iota // an application hands a record to its producer
	CallAck         // a producer tells its application a record is acknowledged
	CallFail        // a producer tells its application a record failed
	CallTxn         // a producer tells its application a transaction ended
)

// Call is a local call between an application and its producer
// instance: not a network message, drawn apart from them.
type Call struct {
	At       sim.Time
	From, To int32
	Class    uint8
	Line     int32
	Text     string
	// More are the trace lines of the calls [Aggregate] collapsed into
	// this one, after Line.
	More []int32
}

// Item kinds of a [Ref].
const (
	RefMsg = iota
	RefMark
	RefBand
	RefCall
)

// Ref names one item of a Run: Index*4 + its kind (RefMsg...).
type Ref int32

func ref(kind, index int) Ref { return Ref(index*4 + kind) }

// RecordPath is one record's path through the run.
type RecordPath struct {
	ID    model.RecordID
	Items []Ref
}

// Items is the number of items the page draws.
func (r *Run) Items() int { return len(r.Msgs) + len(r.Marks) + len(r.Bands) + len(r.Calls) }
