package hashwalk

// Scratch are the fields of the World's nodes, network and checkers
// that hold nothing between events, by "package.Type.Field"
// ([Options.Scratch]): scenarios/world's state hash leaves them out.
var Scratch = map[string]bool{
	"net.Network.notices":              true, // TakeNotices' result, consumed at once
	"net.Network.names":                true, // constant
	"net.Network.lat":                  true, // constant but for Quiet, covered by World.ended
	"net.Network.changed":              true, // the state hash's own mark (Network.TakeChanged)
	"check.logView.commits":            true, // reset at every observation
	"check.logView.aborted":            true,
	"check.logView.views":              true, // Finish's scratch: empty between events
	"check.logView.rc":                 true,
	"check.txnInv.fin":                 true,
	"client.Producer.pool":             true, // allocator state: free lists and slabs, not knowledge
	"client.Producer.policy":           true, // configuration: cfg.Policy's behaviour, stateless
	"broker.Broker.pool":               true,
	"broker.Broker.msgs":               true, // allocator state: the pool messages are carved from
	"coordinator.coordinatorNode.msgs": true,
	"broker.LeaderState.msgs":          true, // the broker's pool, by pointer
	"broker.ReplicaFetcher.msgs":       true,
	"storage.Partition.spare":          true, // storage a reset node keeps for its log
	"model.ObsSlab.spare":              true,
	"client.partState.sp":              true, // list storage kept for reuse, holding nothing
	"client.dconn.spare":               true,
	"model.ObsSlab.obs":                true, // the last call's observations, copied by the world at once
	"storage.Partition.expiry":         true, // a cache of what the producer entries give (NextExpiry)
	"coordinator.txnLog.spare":         true, // storage a reset coordinator keeps for its log
	"coordinator.txnLog.reclaim":       true,
	"check.dedup.hint":                 true, // Finish's scratch
	"broker.LeaderState.eff":           true, // the last call's effects, carried out at once
	// Report only: they number an application's hand-overs of a record
	// for the run's history (docs/history.md); nothing the run does
	// depends on them, so states that differ only there are alike.
	"model.Record.Resend": true,
	"world.app.resends":   true,
	// Report only: the plan action a rule prints when it fires; a rule's
	// matching is its message (direction, number, link).
	"world.dropRule.act":       true,
	"world.lateRule.act":       true,
	"broker.RejectRule.Action": true,
	"broker.RejectRule.Line":   true,
	// Effects the world holds in place while it carries them out
	// (model/hold.go): nothing is held between events.
	"model.EffectStack.depth": true,
	"model.EffectStack.bufs":  true,
}

// UnusedRules walks a list of plan rules: used rules never fire again. Its first
// named field is a rule's "used" flag (a [Special]'s "[]used").
func UnusedRules(h *Hasher, f Fields) {
	v, used := f.V, f.Path(0)
	n := 0
	for i := range v.Len() {
		if r := v.Index(i); !r.FieldByIndex(used).Bool() {
			h.Value(r)
			n++
		}
	}
	h.U64(uint64(n))
}
