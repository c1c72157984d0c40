package world

import (
	"slices"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/params"
)

// restartInput is called when producer instance in restarts after a crash.
// An exactly-once application (app.mode=exactly-once) whose live instance
// it is restarts as Kafka's consume-transform-produce loop does: the new
// incarnation calls initTransactions (InitProducerId with the
// transactional.id, which fences the crashed incarnation and aborts its
// open transaction) and then fetches the committed input position and
// resumes there (OffsetFetch with require_stable, resumeInput), as a
// takeover does. The crashed incarnation's pending sends are dropped (a
// new chain of send events) and nothing is resent: what it had not
// committed is read again from the input. It reports whether it did so;
// at least once (or for an instance that is no longer the application's
// live one) the restart keeps its sends and resends as before.
func (w *World) restartInput(in *instance) bool {
	if !w.mode.drivesApps() || in.cons == nil && (w.cfg.App.Mode != params.AppExactlyOnce || in != in.app.current()) {
		return false
	}
	in.app.chain++
	// The crashed incarnation's retry of the position fetch goes with it.
	st := &w.nodes[in.node].fault
	st.held = slices.DeleteFunc(st.held, func(ev Event) bool { return ev.kind == evAppResume })
	in.active = false
	in.restarted = true
	// Read again from the input if not committed; counted abandoned until
	// an outcome comes.
	in.unresolved.Each(func(rec model.Record) { in.app.abandoned.Set(rec.ID.N) })
	in.unresolved.Clear()
	return true
}

// eosFetch reports whether instance in's application reads its input from
// the committed position once the instance has its producer id: every
// instance of an exactly-once application (Kafka's consume-transform-
// produce loop calls initTransactions, then fetches the committed offsets
// and polls from there), the first one included, so that an instance
// whose initTransactions comes late does not process what a newer one
// committed meanwhile. A scripted world decides itself.
func (w *World) eosFetch(in *instance) bool {
	return w.cfg.App.Mode == params.AppExactlyOnce && w.mode.drivesApps()
}
