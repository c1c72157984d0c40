package faults

import simnet "github.com/idemsim/idemsim/net"

func init() {
	register(kind{verb: "duplicate", rank: 130, parse: parseDuplicate, example: "0s duplicate response 3 p1>b1"})
}

// Duplicate is "duplicate request|response N CLIENT>SERVER": in datagram
// mode (net.mode=datagram) the N-th request the client sends to the server
// in the run, or its response, arrives twice, the copy right after the
// original. It is the plan form of one net.duplicate draw; a tcp
// connection never duplicates, so in tcp mode the world ignores it with a
// note. It counts requests on the link like a [Drop] and fires once.
type Duplicate struct {
	Dir simnet.Direction
	// N is the request's number on the link, >= 1.
	N int64
	// From is the client, To the server.
	From, To string
}

func (Duplicate) Verb() string { return "duplicate" }

func (a Duplicate) AppendTo(b []byte) []byte {
	return appendMsgRef(append(b, a.Verb()...), a.Dir, a.N, a.From, a.To)
}

func (a Duplicate) Nodes() []string     { return []string{a.From, a.To} }
func (a Duplicate) Apply(t Target)      { t.ArmDuplicate(a.Dir, a.N, a.From, a.To) }
func (Duplicate) Span() Span            { return Instant }
func (Duplicate) Closes(Action) bool    { return false }
func (Duplicate) Weaken() (Knob, bool)  { return Knob{}, false }
func (a Duplicate) Equal(b Action) bool { c, ok := b.(Duplicate); return ok && a == c }

// Check checks that the link goes from a client to a server.
func (a Duplicate) Check(n Nodes) error { return checkMsgLink(a.Verb(), a.From, a.To, n) }

// parseDuplicate reads "request|response N FROM > TO".
func parseDuplicate(args []string) (Action, error) {
	dir, n, from, to, err := parseMsgRef("duplicate", "0s duplicate request 3 p1>b1", args)
	if err != nil {
		return nil, err
	}
	return Duplicate{Dir: dir, N: n, From: from, To: to}, nil
}
