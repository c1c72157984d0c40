package broker

import (
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Controlled shutdown (KRaft), as apache/kafka@1eb7644349cb does it:
// core/src/main/scala/kafka/server/BrokerServer.scala#shutdown (with
// controlled.shutdown.enable, the default) calls
// ReplicaManager#beginControlledShutdown and
// BrokerLifecycleManager#beginControlledShutdown (BLM), then waits for
// BLM's controlledShutdownFuture, at most until the shutdown's deadline
// (KafkaBroker#shutdown: 5 minutes). BLM moves to
// PENDING_CONTROLLED_SHUTDOWN and heartbeats at once with wantShutDown;
// every heartbeat from then on carries it. The controller moves the
// broker's leaderships away and takes it out of every ISR
// (model/controller, ReplicationControlManager#handleBrokerInControlledShutdown)
// and answers shouldShutDown once it leads nothing and the other active
// brokers have applied the change. BLM sends its next heartbeat 50 ms
// after the first answer that is not yet shouldShutDown, then every
// broker.heartbeat.interval.ms; at shouldShutDown the future completes and
// the broker stops. Meanwhile (ReplicaManager#applyLocalFollowersDelta)
// a replica the metadata shows out of the ISR, or leaderless, stops
// fetching, so that its leader does not add it back.
//
// Simplified: the 50 ms heartbeat is sent besides the periodic one
// (BLM reschedules its one timer); a broker that is not replicated (no
// controller) stops at once.

// DefaultShutdownTimeout is how long a broker waits for the controller's
// shouldShutDown before it stops anyway (KafkaBroker#shutdown(): 5
// minutes).
const DefaultShutdownTimeout = 5 * time.Minute

// shutdownFirstRetry is BLM's quicker second heartbeat in
// PENDING_CONTROLLED_SHUTDOWN (50 ms after the first answer).
const shutdownFirstRetry = 50 * time.Millisecond

// shutdownState is a broker's controlled shutdown.
type shutdownState struct {
	// on: asked to stop, waiting for the controller.
	on bool
	// answered: the controller answered a WantShutDown heartbeat once.
	answered bool
	// down is how long the broker stays stopped before its clean restart.
	down time.Duration
}

// Low bits of the tokShutdown timers.
const (
	shutdownHeartbeat = 0
	shutdownDeadline  = 1
)

// BeginShutdown starts a controlled shutdown: the broker asks the
// controller, with a heartbeat now and every one after, to move its
// leaderships away. When the controller answers shouldShutDown, or after
// [DefaultShutdownTimeout], the effects end with an [model.OutStop]: the
// world stops the broker then (a clean shutdown) and restarts it clean
// down later (the OutStop's At). A broker already in controlled shutdown
// ignores it.
func (b *Broker) BeginShutdown(now sim.Time, down time.Duration) []model.Out {
	b.begin()
	if b.shut.on {
		return b.Outs
	}
	b.shut = shutdownState{on: true, down: down}
	if !b.Replicated() {
		b.stop(now, "no controller to ask")
		return b.Outs
	}
	b.observe(model.Obs{Kind: model.ObsNote, Text: "controlled shutdown: asks the controller to move its leaderships"})
	b.Outs = append(b.Outs, b.heartbeatRequest(),
		model.Out{Kind: model.OutWake, At: now.Add(DefaultShutdownTimeout), Timer: replTok(tokShutdown, 0, shutdownDeadline)})
	return b.Outs
}

// ShuttingDown reports whether the broker is in controlled shutdown.
func (b *Broker) ShuttingDown() bool { return b.shut.on }

// shutdownAnswer takes the controller's answer to a heartbeat.
func (b *Broker) shutdownAnswer(now sim.Time, m *model.BrokerHeartbeatResponse) {
	switch {
	case !b.shut.on:
	case m.ShouldShutDown:
		b.stop(now, "the controller lets it stop")
	case !b.shut.answered:
		b.shut.answered = true
		b.Outs = append(b.Outs, model.Out{Kind: model.OutWake, At: now.Add(shutdownFirstRetry), Timer: replTok(tokShutdown, 0, shutdownHeartbeat)})
	}
}

// shutdownWake handles the quick heartbeat and the deadline.
func (b *Broker) shutdownWake(now sim.Time, low uint64) {
	switch {
	case !b.shut.on:
	case low == shutdownDeadline:
		b.stop(now, "timed out waiting for the controller")
	default:
		b.Outs = append(b.Outs, b.heartbeatRequest())
	}
}

// stop ends the controlled shutdown: the world stops the broker.
func (b *Broker) stop(now sim.Time, why string) {
	down := b.shut.down
	b.shut = shutdownState{}
	b.observe(model.Obs{Kind: model.ObsNote, Text: "controlled shutdown: " + why})
	b.Outs = append(b.Outs, model.Out{Kind: model.OutStop, At: now.Add(down)})
}
