package faults

import (
	"fmt"
	"slices"
	"strconv"

	simnet "github.com/idemsim/idemsim/net"
)

func init() {
	register(kind{verb: "delay", rank: 120, parse: parseDelay, example: "0s delay request 3 p1>b1"})
}

// Delay is "delay request|response N CLIENT>SERVER": the N-th request the
// client sends to the server in the run, or its response, is held back
// until a message on another connection (another client-server pair) has
// arrived at or after the time it would have arrived; it then arrives
// right after that message. A message nothing overtakes is released at the
// plan's end. On a tcp connection the messages sent behind it in the same
// direction wait behind it (a connection never reorders). Like a [Drop] it
// counts requests on the link and fires once. It is how an explorer
// (docs/explore.md) puts one message behind another connection's next one.
type Delay struct {
	Dir simnet.Direction
	// N is the request's number on the link, >= 1.
	N int64
	// From is the client, To the server.
	From, To string
}

func (Delay) Verb() string { return "delay" }

func (a Delay) AppendTo(b []byte) []byte {
	return appendMsgRef(append(b, a.Verb()...), a.Dir, a.N, a.From, a.To)
}

func (a Delay) Nodes() []string     { return []string{a.From, a.To} }
func (a Delay) Apply(t Target)      { t.ArmDelay(a.Dir, a.N, a.From, a.To) }
func (Delay) Span() Span            { return Instant }
func (Delay) Closes(Action) bool    { return false }
func (Delay) Weaken() (Knob, bool)  { return Knob{}, false }
func (a Delay) Equal(b Action) bool { c, ok := b.(Delay); return ok && a == c }

// Check checks that the link goes from a client to a server.
func (a Delay) Check(n Nodes) error { return checkMsgLink(a.Verb(), a.From, a.To, n) }

// parseDelay reads "request|response N FROM > TO".
func parseDelay(args []string) (Action, error) {
	dir, n, from, to, err := parseMsgRef("delay", "0s delay request 3 p1>b1", args)
	if err != nil {
		return nil, err
	}
	return Delay{Dir: dir, N: n, From: from, To: to}, nil
}

// appendMsgRef appends " request|response N CLIENT>SERVER".
func appendMsgRef(b []byte, dir simnet.Direction, n int64, from, to string) []byte {
	if dir == simnet.Response {
		b = append(b, " response "...)
	} else {
		b = append(b, " request "...)
	}
	b = strconv.AppendInt(b, n, 10)
	return appendLink(b, from, to)
}

// checkMsgLink checks that a message action's link goes from a client (a
// producer, or a server talking to another server) to a server.
func checkMsgLink(verb, from, to string, n Nodes) error {
	if !slices.Contains(n.Clients, from) && !slices.Contains(n.Servers, from) || !slices.Contains(n.Servers, to) || from == to {
		return fmt.Errorf("%s link %s>%s must go from a producer (%v) or a server to another server (%v)", verb, from, to, n.Clients, n.Servers)
	}
	return nil
}

// parseMsgRef reads the tokens "request|response N FROM > TO" of a message
// action; example is the whole line shown in its usage error.
func parseMsgRef(verb, example string, args []string) (simnet.Direction, int64, string, string, error) {
	if len(args) != 5 || args[3] != ">" {
		return 0, 0, "", "", fmt.Errorf("want \"%s request|response N CLIENT>SERVER\", e.g. %s", verb, example)
	}
	var dir simnet.Direction
	switch args[0] {
	case "request":
		dir = simnet.Request
	case "response":
		dir = simnet.Response
	default:
		return 0, 0, "", "", fmt.Errorf("%s: %q is not allowed (allowed: request, response)", verb, args[0])
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || n < 1 {
		return 0, 0, "", "", fmt.Errorf("%s: request number %q is not allowed (allowed: an integer >= 1)", verb, args[1])
	}
	from, to, err := parseLink(verb, args[2], args[4])
	if err != nil {
		return 0, 0, "", "", err
	}
	return dir, n, from, to, nil
}
