package tally

import (
	"time"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
)

// Run reads the observation stream and keeps the run's counters: errors
// by Kafka name, network fates, fencing (a broker, the transaction
// coordinator or the group coordinator refusing a stale epoch) and zombie
// writes, abandoned records, acknowledgement latencies.
type Run struct {
	Errors map[string]int64
	Net    NetStats
	// Server marks the server nodes, by node id.
	Server    []bool
	Fenced    int64
	Abandoned int64
	// ZombieWrites counts records a superseded instance got appended;
	// ZombieAttempts its produce batches that reached a broker;
	// ZombieRejected those rejected for a stale epoch.
	ZombieWrites, ZombieAttempts, ZombieRejected int64
	Latencies                                    []time.Duration
	// Held counts the per-record state the run holds: records the
	// applications sent and entries (batches and markers) appended to a
	// partition log, each kept until the run ends by the producer's,
	// the brokers' and the checkers' tables (the World's count of its state).
	Held int64
	// App is each node's application (-1 for servers); Newest the
	// largest node id of an active instance, per application.
	App    []int32
	Newest []int32
	// Grouped: a group application's instances run at once, none
	// supersedes another; Group counts its offsets' refusals.
	Grouped bool
	Group   Group
}

// serverLink reports whether o is about a message between two servers
// (neither end is a producer instance).
func (s *Run) serverLink(o *model.Obs) bool {
	return o.Node >= 0 && o.Peer >= 0 && s.Server[o.Node] && s.Server[o.Peer]
}

// zombie reports whether a newer instance of node n's application is
// active.
func (s *Run) zombie(n int32) bool {
	a := s.App[n]
	return a >= 0 && s.Newest[a] > n && !s.Grouped
}

var (
	fateLost        = simnet.Lost.String()
	fateConnBroken  = simnet.ConnBroken.String()
	fatePartitioned = simnet.Partitioned.String()
)

// Observe counts o.
func (s *Run) Observe(o *model.Obs) {
	switch o.Kind {
	case model.ObsActive:
		if o.Node > s.Newest[o.App] {
			s.Newest[o.App] = o.Node
		}
	case model.ObsSent:
		if s.serverLink(o) {
			s.Net.ServerSent++
			if o.Fate != "" {
				s.Net.ServerDropped++
			}
			return
		}
		lost := o.Fate == fateLost
		if o.Flag {
			s.Net.ResponsesSent++
			if lost {
				s.Net.ResponsesLost++
			}
		} else {
			s.Net.RequestsSent++
			if lost {
				s.Net.RequestsLost++
			}
		}
		if o.Fate == fateConnBroken || o.Fate == fatePartitioned {
			s.Net.Dropped++
		}
	case model.ObsLost:
		if s.serverLink(o) {
			s.Net.ServerDropped++
			return
		}
		if !o.Flag {
			s.Net.Dropped++
		}
	case model.ObsDelivered:
		switch m := o.Msg.(type) {
		case *model.ProduceResponse:
			for _, p := range m.Partitions {
				if p.Err != model.ErrNone {
					s.Errors[p.Err.String()]++
				}
			}
		case *model.TxnResponse:
			if m.Err != model.ErrNone {
				s.Errors[m.Err.String()]++
			}
		case *model.InitProducerIDResponse:
			if m.Err != model.ErrNone {
				s.Errors[m.Err.String()]++
			}
		}
	case model.ObsAppSend:
		s.Held++
	case model.ObsMarker:
		if o.Err == model.ErrNone {
			s.Held++
		}
	case model.ObsVerdict:
		if o.Result.Err == model.ErrNone && !o.Result.Duplicate {
			s.Held++
		}
		stale := o.Result.Err == model.ErrInvalidProducerEpoch || o.Result.Err == model.ErrProducerFenced
		if stale {
			s.Fenced++
		}
		zombie := s.zombie(o.Peer)
		if zombie {
			s.ZombieAttempts++
			if stale {
				s.ZombieRejected++
			}
			if o.Result.Err == model.ErrNone && !o.Result.Duplicate {
				s.ZombieWrites += int64(len(o.Batch.Records))
			}
		}
	case model.ObsTxnOp, model.ObsOffsets:
		// A coordinator refusing a stale instance fences it too.
		if o.Err == model.ErrInvalidProducerEpoch || o.Err == model.ErrProducerFenced {
			s.Fenced++
		}
		if s.Grouped {
			s.Group.Observe(o)
		}
	case model.ObsOutcome:
		if oc := &o.Outcome; oc.Err == model.ErrNone {
			s.Latencies = append(s.Latencies, o.At.Sub(oc.SentAt))
		} else if oc.Err == model.ErrDeliveryTimeout {
			s.Errors[oc.Err.String()]++
		}
	case model.ObsNote:
		if o.NoteKind == model.NoteFatal {
			s.Errors[o.Err.String()+"(fatal)"]++
		}
	case model.ObsRunEnd:
		s.Abandoned = o.Abandoned
	}
}
