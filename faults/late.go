package faults

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

func init() {
	register(kind{verb: "late", rank: 140, parse: parseLate, example: "0s late EndTxn 1 p1>c1 3s"})
}

// Late is "late request|TYPE N CLIENT>SERVER DUR": the N-th request the
// client sends to the server in the run (with a TYPE such as EndTxn or
// Produce, the N-th request of that type on the link) reaches the server
// For later than the network would deliver it, and the server reads and
// handles it even if the client has closed the connection meanwhile, or a
// partition has cut the link since.
//
// It is a TCP segment retransmitted after a partition heals, or held in a
// congested path, arriving on a server socket that never saw the client's
// close (the client's FIN travels behind it): Kafka's SocketServer reads
// a request that arrived and handles it to the end, and only the response
// is lost (Kafka 3.9 core/src/main/scala/kafka/network/SocketServer.scala:
// Processor.sendResponse drops a response for a closed channel;
// KafkaRequestHandler.run never checks the connection). It is how a
// delayed EndTxn or Produce crosses a transaction boundary (KAFKA-17754,
// -bug Z20), or a batch lands after its transaction was aborted (a hanging
// transaction, -bug Z19). The requests sent behind
// it on the same connection wait behind it (a connection never reorders).
// Like a [Drop] it fires once.
type Late struct {
	// Type is a request type name ("EndTxn", "Produce", ...), or "" for
	// any request.
	Type string
	// N is the request's number on the link (among requests of Type, when
	// set), >= 1.
	N int64
	// From is the client, To the server.
	From, To string
	// For is the extra delay, >= 0.
	For time.Duration
}

// LateTypes are the request types a [Late] may name.
var LateTypes = []string{"InitProducerId", "Produce", "AddPartitionsToTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "EndTxn", "OffsetFetch", "WriteTxnMarkers", "VerifyPartitions", "AddPartitions"}

func (Late) Verb() string { return "late" }

func (a Late) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = append(b, ' ')
	if a.Type == "" {
		b = append(b, "request"...)
	} else {
		b = append(b, a.Type...)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, a.N, 10)
	b = appendLink(b, a.From, a.To)
	b = append(b, ' ')
	return append(b, a.For.String()...)
}

func (a Late) Nodes() []string     { return []string{a.From, a.To} }
func (a Late) Apply(t Target)      { t.ArmLate(a.Type, a.N, a.From, a.To, a.For) }
func (Late) Span() Span            { return Instant }
func (Late) Closes(Action) bool    { return false }
func (a Late) Equal(b Action) bool { c, ok := b.(Late); return ok && a == c }

// Weaken shortens the delay, down to 0.
func (a Late) Weaken() (Knob, bool) {
	return Knob{Max: int64(a.For), Duration: true, With: func(v int64) Action {
		a.For = time.Duration(v)
		return a
	}}, true
}

// Check checks that the link goes from a client to a server.
func (a Late) Check(n Nodes) error { return checkMsgLink(a.Verb(), a.From, a.To, n) }

// parseLate reads "request|TYPE N FROM > TO DUR".
func parseLate(args []string) (Action, error) {
	const want = "want \"late request|TYPE N CLIENT>SERVER DUR\", e.g. 2s late EndTxn 1 p1>c1 3s"
	if len(args) != 6 || args[3] != ">" {
		return nil, fmt.Errorf("%s", want)
	}
	var a Late
	switch {
	case args[0] == "request":
	case slices.Contains(LateTypes, args[0]):
		a.Type = args[0]
	default:
		return nil, fmt.Errorf("late: %q is not allowed (allowed: request, %v)", args[0], LateTypes)
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("late: request number %q is not allowed (allowed: an integer >= 1)", args[1])
	}
	a.N = n
	if a.From, a.To, err = parseLink("late", args[2], args[4]); err != nil {
		return nil, err
	}
	if a.For, err = parseDur(args[5]); err != nil {
		return nil, fmt.Errorf("late delay %v", err)
	}
	return a, nil
}
