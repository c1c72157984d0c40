package world

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/coordinator"
	"github.com/idemsim/idemsim/scenarios/params"
)

// The group coordinator, g1 (model/coordinator/group.go): it keeps the
// committed input positions of exactly-once applications (app.mode), so
// only worlds with such an application or a consumer have it. The
// applications fetch their positions from it when an instance starts
// (world_app.go, resumeInput); producers reach it for TxnOffsetCommit.
func init() {
	registerServerKind(serverKind{
		name: "g1",
		dest: model.DestGroupCoordinator,
		present: func(w *World) bool {
			return w.cfg.App.Mode == params.AppExactlyOnce || w.cfg.Extra.Consumer.On || w.cfg.App.TopicInput()
		},
		build: func(_ *World, spare model.Server) model.Server {
			if g, ok := spare.(*coordinator.GroupCoordinator); ok {
				g.Reclaim() // no Result holds a message
				g.Reset()
				return g
			}
			return coordinator.NewGroupCoordinator()
		},
		scratch: []string{"coordinator.GroupCoordinator.msgs"},
	})
}
