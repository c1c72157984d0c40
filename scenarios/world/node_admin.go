package world

import (
	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/admin"
)

// The admin node a1 (model/admin, docs/operations.md), with admin=true; faultNodes lists it apart.
func init() {
	registerServerKind(serverKind{name: "a1", dest: model.DestAdmin, present: func(w *World) bool { return w.cfg.Extra.Admin }, scratch: []string{"admin.Admin.out", "admin.Admin.fin", "admin.Admin.obs"},
		build: func(w *World, spare model.Server) model.Server {
			return admin.Recycle(spare, w.topo.Leaders, w.topo.Brokers)
		}})
}

// AbortTransaction hands the admin node the plan's abort command; the armer leaves it to its time.
func (t actuator) AbortTransaction(a faults.AbortTxn) {
	n, s := t.w.nodeOf(a.Admin), admin.AbortSpec{Partition: a.Partition, PID: model.ProducerID(a.Producer), Epoch: a.Epoch, CoordinatorEpoch: a.CoordinatorEpoch, StartOffset: a.StartOffset}
	t.w.serverOuts(t.now, n, t.w.nodes[n].srv.(*admin.Admin).Abort(t.now, s))
}
func (armer) AbortTransaction(faults.AbortTxn) {}
