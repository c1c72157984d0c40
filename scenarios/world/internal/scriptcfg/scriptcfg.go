// Package scriptcfg holds a scripted world's configuration and the
// values it hands out (scenarios/world's Script): its parameters and
// their defaults, the keys a producer instance may set, node names, the
// messages in flight, and its trace writer.
package scriptcfg

import (
	"bytes"
	"io"
	"strings"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
)

// Config configures a scripted world (world.Script).
type Config struct {
	// Seed feeds the nodes' random streams (the producers' backoff
	// jitter, a broker's transient errors).
	Seed uint64
	// Sets are the world's parameters, applied to the scripted scenario's
	// defaults. Producer parameters set here are every instance's
	// defaults. The workload (records, send.interval.ms, app.idle.*), the
	// network's random draws (net.* but net.mode and
	// net.disconnect_notice) and the generated fault plan (fault.* but
	// fault.producer.resend) belong to the script and cannot be set.
	Sets []params.KV
	// Instances is the room for producer instances; 0 means 16.
	Instances int
	// Out, if not nil, receives the observation stream as trace lines,
	// without their "t=TIME" prefix.
	Out io.Writer
}

// Defaults are the defaults a scripted world's parameters take on top
// of the common ones, for a script that decides about messages and time
// itself:
//
//	net.latency=constant net.latency.base=0s   messages wait for the script
//	net.disconnect_notice=0                    a client learns of a broken
//	                                           connection from the script
//	                                           (world.Script.Disconnect) or at
//	                                           request.timeout.ms
//	fault.producer.resend=true                 a crashed instance's unresolved
//	                                           records wait for a restart or
//	                                           a replay
var Defaults = []params.KV{
	{Key: "net.latency", Value: "constant"}, {Key: "net.latency.base", Value: "0s"}, {Key: "net.disconnect_notice", Value: "0"},
	{Key: "fault.producer.resend", Value: "true"},
}

// Resolve resolves a scripted world's parameters: the common ones
// at [Defaults], with sets applied as the command line's -set.
func Resolve(sets []params.KV) (*params.Resolved, error) {
	v := params.ScenarioValues(nil, Defaults)
	if err := v.Apply(params.Overrides{Sets: sets}); err != nil {
		return nil, err
	}
	return params.Resolve(v)
}

// Owned reports why key cannot be set in a scripted world, or "".
func Owned(key string) string {
	switch {
	case key == "records" || key == "send.interval.ms" || strings.HasPrefix(key, "app.idle."):
		return "the script is the workload"
	case strings.HasPrefix(key, "net.") && key != "net.mode" && key != "net.disconnect_notice":
		return "the script decides what the network does with each message"
	case strings.HasPrefix(key, "fault.") && key != "fault.producer.resend":
		return "the script decides the faults"
	}
	return ""
}

// ProducerKeys are the parameters that may differ between the producer
// instances of a scripted world (world.Script.AddProducer); the others belong to
// the world.
var ProducerKeys = []string{
	"enable.idempotence", "acks", "retries",
	"max.in.flight.requests.per.connection", "max.in.flight.above.five",
	"delivery.timeout.ms", "request.timeout.ms", "retry.backoff.ms", "retry.backoff.max.ms",
	"reconnect.backoff.ms", "linger.ms", "batch.size",
	"transactional.id", "transaction.records", "transaction.timeout.ms", "client.policy",
	"producer.whatif.fence_only", "producer.bug.metaflap_reset", "producer.bug.reuse_expired_seq", "producer.whatif.librdkafka_no_skip_bump",
	"socket.nagle.disable",
}

// Untimed writes trace lines without their "t=TIME " prefix.
type Untimed struct{ W io.Writer }

func (u Untimed) Write(p []byte) (int, error) {
	line := p
	if i := bytes.IndexByte(line, ' '); i >= 0 && bytes.HasPrefix(line, []byte("t=")) {
		line = line[i+1:]
	}
	if _, err := u.W.Write(line); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ValidNodeName reports whether s can name a node in a plan: a letter, then
// letters, digits, '_', '-' or '.'.
func ValidNodeName(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}

// Flight is a message in flight in a scripted world.
type Flight struct {
	// ID numbers the message in send order (the observations' MsgID).
	ID       uint64
	From, To string
	Msg      model.Message
	// Response: a server's answer on its way to a producer instance.
	Response bool
	// Conn is the message's connection.
	Conn simnet.Conn
}

// Type returns the message's type as its description starts:
// "Produce", "ProduceResp", "InitProducerId", "InitProducerIdResp",
// "AddPartitionsToTxn", "EndTxn", "AddPartitionsToTxnResp", "EndTxnResp".
func (f *Flight) Type() string {
	d := f.Msg.AppendDescription(nil)
	if i := bytes.IndexByte(d, '#'); i >= 0 {
		d = d[:i]
	}
	return string(d)
}
