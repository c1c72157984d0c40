package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/sim"
)

// An application reading an input topic (app.input=topic, docs/consumers.md)
// runs Kafka's consume-transform-produce loop: each producer instance has a
// consumer on its node and own connections; each polled input record
// becomes the output record with its id. Only the newest instance reads.

// readInput starts in's consumer at its group's committed offsets (or at
// positions: exactly once), closing the older instances' (the group hands
// their partitions over); it reports whether the application reads a topic.
func (w *World) readInput(now sim.Time, in *instance, positions []int64) bool {
	if in.cons == nil {
		return false
	}
	for _, old := range in.app.instances[:in.index] {
		if !w.groupApp {
			old.cons.Crash()
			w.probe.touch(old.node) // statehash.go
		}
	}
	in.resuming = false
	w.consOuts(now, in, in.cons.StartAt(now, positions))
	return true
}

// consOuts carries out in's consumer's effects; the application processes
// its polls unless it waits for its committed position or was taken over.
func (w *World) consOuts(now sim.Time, in *instance, outs []model.Out) {
	if p := w.probe.parts; p != nil { // the state hash's marks (statehash.go)
		p.Dirty(int(in.node))
	}
	outs = w.effs.Push(outs)
	for i := range outs {
		o := &outs[i]
		switch k := w.connIdx(o.Dest); o.Kind {
		case model.OutSend:
			c := in.cconns[k]
			if w.groupApp && (c.Gen == 0 || !w.nw.Alive(c)) {
				c = w.groupConn(in, k, o.Dest)
			} else if c.Gen == 0 {
				c = w.nw.ConnectAux(in.node, w.destNode(o.Dest)) // beside the producer's
				in.cconns[k] = c
			}
			link := int(c.Client)*len(w.names) + int(c.Server)
			w.reqCount[link]++
			w.send(now, wire{m: o.Msg, client: in.node, server: c.Server, inst: in, cons: true, dest: o.Dest, inc: w.nodes[in.node].inc, reqNo: w.reqCount[link]}, c, simnet.Request)
		case model.OutClose:
			w.nw.Close(in.cconns[k])
			in.cconns[k] = simnet.Conn{}
			w.mode.connsDown(w, now)
		case model.OutNote: // its group coordinator lookup's (model/consumer)
			w.emit(model.Obs{Kind: model.ObsNote, At: now, Node: int32(in.node), Peer: -1, App: in.app.id, Text: o.Note, NoteKind: o.NoteKind})
		case model.OutWake:
			w.schedule(w.drifted(now, in.node, o.At), Event{kind: evAppPoll, node: int32(in.node), n: o.Timer, gen: w.nodes[in.node].inc, bg: !o.Owed})
		case model.OutObserve:
			// The consumer's polls and resets go to the trace and the
			// checks (INV-READ, INV-POS, LIVE-READ) as r1's do, from
			// the instance's node.
			ob := o.Obs
			ob.At, ob.Node, ob.Peer = now, int32(in.node), -1
			w.fire(ob)
			if ob.Kind != model.ObsPoll || in.resuming || in != in.app.current() && !w.groupApp {
				continue
			}
			if w.cfg.App.Mode == params.AppExactlyOnceV2 {
				in.prod.SetGroupMetadata(in.cons.GroupMetadata()) // sendOffsetsToTransaction's
			}
			for _, id := range o.Obs.IDs {
				in.app.next = id.N
				in.awaiting = append(in.awaiting, id.N) // before the send, whose effects may commit
				if n := id.N; w.groupApp {
					w.sendNew(now, in, int32(n%int64(w.input.Parts)%int64(len(w.topo.Leaders))))
				} else {
					w.sendNew(now, in, int32(n%int64(len(w.topo.Leaders))))
				}
			}
			if w.input.Done(in.cons, in.app.id) && w.groupApp {
				outs, _ := in.prod.CommitOpen(now) // its partitions are read
				w.apply(now, in, outs)
			} else if w.input.Done(in.cons, in.app.id) {
				// The input is read: commit what is open.
				w.apply(now, in, in.prod.Flush(now))
			}
		}
	}
	w.effs.Pop()
	if w.groupApp {
		w.groupRevoke(now, in) // world_group.go
	}
}

// inputAcked commits at least once (commitSync) when the last poll's
// records all have their outcome, as after producer.flush().
func (w *World) inputAcked(now sim.Time, in *instance) {
	if in.cons != nil && in.cons.Held() && len(in.awaiting) == 0 {
		w.consOuts(now, in, in.cons.CommitSync(now))
	}
}

// inputTxn ends a transaction of an at-least-once transactional loop
// (input.AtLeastOnceTxn): once it commits, the loop commits the offsets
// after its records (commitSync); once it aborts, the loop reads again
// from the group's committed offsets (a seek to consumer.committed()).
func (w *World) inputTxn(now sim.Time, in *instance, t *model.TxnResult) {
	if in.cons == nil || w.eosFetch(in) || w.groupApp || in != in.app.current() || t.Failed {
		return
	}
	if t.Committed {
		w.consOuts(now, in, in.cons.CommitOffsets(now, w.input.Committed(t.Records)))
		return
	}
	w.readInput(now, in, nil)
}

// crashInput loses in's consumer with its process.
func (w *World) crashInput(in *instance) {
	if in.cons == nil {
		return
	}
	in.cons.Crash()
	in.awaiting, in.revokeWait = in.awaiting[:0], false
	for _, c := range in.cconns {
		if c.Gen != 0 {
			w.nw.Close(c)
		}
	}
	clear(in.cconns)
}
