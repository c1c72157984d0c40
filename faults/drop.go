package faults

import (
	"fmt"
	"strconv"

	simnet "github.com/idemsim/idemsim/net"
)

func init() {
	register(kind{verb: "drop", rank: 80, parse: parseDrop, example: "0s drop response 17 p1>b1"})
}

// Drop is "drop request|response N CLIENT>SERVER": the N-th request the
// client sends to the server in the run (1-based, reconnects included),
// or its response, is lost. The client is a producer, or a server that
// sends to another server (a marker write, a verification). The rule is armed at the action's time and
// fires once.
type Drop struct {
	Dir simnet.Direction
	// N is the request's number on the link, >= 1.
	N int64
	// From is the client, To the server.
	From, To string
}

func (Drop) Verb() string { return "drop" }

func (a Drop) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	if a.Dir == simnet.Response {
		b = append(b, " response "...)
	} else {
		b = append(b, " request "...)
	}
	b = strconv.AppendInt(b, a.N, 10)
	return appendLink(b, a.From, a.To)
}

func (a Drop) Nodes() []string     { return []string{a.From, a.To} }
func (a Drop) Apply(t Target)      { t.ArmDrop(a.Dir, a.N, a.From, a.To) }
func (Drop) Span() Span            { return Instant }
func (Drop) Closes(Action) bool    { return false }
func (Drop) Weaken() (Knob, bool)  { return Knob{}, false }
func (a Drop) Equal(b Action) bool { c, ok := b.(Drop); return ok && a == c }

// Check checks that the link goes from a client to a server.
func (a Drop) Check(n Nodes) error { return checkMsgLink(a.Verb(), a.From, a.To, n) }

// parseDrop reads "request|response N FROM > TO".
func parseDrop(args []string) (Action, error) {
	var a Drop
	if len(args) != 5 || args[3] != ">" {
		return nil, fmt.Errorf("want \"drop request|response N CLIENT>SERVER\", e.g. 0s drop response 17 p1>b1")
	}
	switch args[0] {
	case "request":
		a.Dir = simnet.Request
	case "response":
		a.Dir = simnet.Response
	default:
		return nil, fmt.Errorf("drop: %q is not allowed (allowed: request, response)", args[0])
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("drop: request number %q is not allowed (allowed: an integer >= 1)", args[1])
	}
	a.N = n
	if a.From, a.To, err = parseLink("drop", args[2], args[4]); err != nil {
		return nil, err
	}
	return a, nil
}
