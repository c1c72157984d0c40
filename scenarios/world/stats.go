package world

import (
	"time"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/world/internal/tally"
)

// NetStats counts what happened to messages on the network.
type NetStats = tally.NetStats

// stats reads the observation stream and keeps the run's counters: errors
// by Kafka name, network fates, fencing (a broker, the transaction
// coordinator or the group coordinator refusing a stale epoch) and zombie
// writes, abandoned records, acknowledgement latencies.
type stats struct {
	errors map[string]int64
	net    NetStats
	// server marks the server nodes, by node id.
	server    []bool
	fenced    int64
	abandoned int64
	// zombieWrites counts records a superseded instance got appended;
	// zombieAttempts its produce batches that reached a broker;
	// zombieRejected those rejected for a stale epoch.
	zombieWrites, zombieAttempts, zombieRejected int64
	latencies                                    []time.Duration
	// held counts the per-record state the run holds: records the
	// applications sent and entries (batches and markers) appended to a
	// partition log, each kept until the run ends by the producer's,
	// the brokers' and the checkers' tables (World.state).
	held int64
	// app is each node's application (-1 for servers); newest the
	// largest node id of an active instance, per application.
	app    []int32
	newest []int32
	// grouped: a group application's instances run at once, none
	// supersedes another; group counts its offsets' refusals.
	grouped bool
	group   tally.Group
}

// newStats returns the counters of w's run, in old's memory when old is
// not nil (a finished run's: runner.go). The errors map is new: the
// previous run's [Result] owns its own.
func newStats(w *World, old *stats) *stats {
	s := old
	if s == nil {
		s = &stats{}
	}
	errs := map[string]int64(nil)
	if w.resultMem != nil && w.resultMem.Errors != nil {
		// A recycled result's map (Runner.Recycle): the new result's.
		errs = w.resultMem.Errors
		clear(errs)
	} else {
		errs = make(map[string]int64)
	}
	*s = stats{errors: errs, app: zeroed(s.app, len(w.nodes)), newest: zeroed(s.newest, len(w.apps)), server: zeroed(s.server, len(w.nodes)),
		latencies: s.latencies[:0], grouped: w.groupApp}
	for i := range w.nodes {
		s.app[i] = -1
		s.server[i] = w.nodes[i].kind != kindProducer
		if in := w.nodes[i].inst; in != nil {
			s.app[i] = in.app.id
		}
	}
	for i := range s.newest {
		s.newest[i] = -1
	}
	return s
}

// serverLink reports whether o is about a message between two servers
// (neither end is a producer instance).
func (s *stats) serverLink(o *model.Obs) bool {
	return o.Node >= 0 && o.Peer >= 0 && s.server[o.Node] && s.server[o.Peer]
}

// zombie reports whether a newer instance of node n's application is
// active.
func (s *stats) zombie(n int32) bool {
	a := s.app[n]
	return a >= 0 && s.newest[a] > n && !s.grouped
}

var (
	fateLost        = simnet.Lost.String()
	fateConnBroken  = simnet.ConnBroken.String()
	fatePartitioned = simnet.Partitioned.String()
)

// Observe counts o.
func (s *stats) Observe(o *model.Obs) {
	switch o.Kind {
	case model.ObsActive:
		if o.Node > s.newest[o.App] {
			s.newest[o.App] = o.Node
		}
	case model.ObsSent:
		if s.serverLink(o) {
			s.net.ServerSent++
			if o.Fate != "" {
				s.net.ServerDropped++
			}
			return
		}
		lost := o.Fate == fateLost
		if o.Flag {
			s.net.ResponsesSent++
			if lost {
				s.net.ResponsesLost++
			}
		} else {
			s.net.RequestsSent++
			if lost {
				s.net.RequestsLost++
			}
		}
		if o.Fate == fateConnBroken || o.Fate == fatePartitioned {
			s.net.Dropped++
		}
	case model.ObsLost:
		if s.serverLink(o) {
			s.net.ServerDropped++
			return
		}
		if !o.Flag {
			s.net.Dropped++
		}
	case model.ObsDelivered:
		switch m := o.Msg.(type) {
		case *model.ProduceResponse:
			for _, p := range m.Partitions {
				if p.Err != model.ErrNone {
					s.errors[p.Err.String()]++
				}
			}
		case *model.TxnResponse:
			if m.Err != model.ErrNone {
				s.errors[m.Err.String()]++
			}
		case *model.InitProducerIDResponse:
			if m.Err != model.ErrNone {
				s.errors[m.Err.String()]++
			}
		}
	case model.ObsAppSend:
		s.held++
	case model.ObsMarker:
		if o.Err == model.ErrNone {
			s.held++
		}
	case model.ObsVerdict:
		if o.Result.Err == model.ErrNone && !o.Result.Duplicate {
			s.held++
		}
		stale := o.Result.Err == model.ErrInvalidProducerEpoch || o.Result.Err == model.ErrProducerFenced
		if stale {
			s.fenced++
		}
		zombie := s.zombie(o.Peer)
		if zombie {
			s.zombieAttempts++
			if stale {
				s.zombieRejected++
			}
			if o.Result.Err == model.ErrNone && !o.Result.Duplicate {
				s.zombieWrites += int64(len(o.Batch.Records))
			}
		}
	case model.ObsTxnOp, model.ObsOffsets:
		// A coordinator refusing a stale instance fences it too.
		if o.Err == model.ErrInvalidProducerEpoch || o.Err == model.ErrProducerFenced {
			s.fenced++
		}
		if s.grouped {
			s.group.Observe(o)
		}
	case model.ObsOutcome:
		if oc := &o.Outcome; oc.Err == model.ErrNone {
			s.latencies = append(s.latencies, o.At.Sub(oc.SentAt))
		} else if oc.Err == model.ErrDeliveryTimeout {
			s.errors[oc.Err.String()]++
		}
	case model.ObsNote:
		if o.NoteKind == model.NoteFatal {
			s.errors[o.Err.String()+"(fatal)"]++
		}
	case model.ObsRunEnd:
		s.abandoned = o.Abandoned
	}
}
