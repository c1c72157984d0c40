package world

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/consumer"
)

// The consumer r1 (model/consumer, docs/consumers.md), in worlds whose
// scenario turns it on: a client of the servers only, started at 0 s
// (a model.Starter) and left out of the fault generator's servers.
func init() {
	registerServerKind(serverKind{name: "r1", dest: model.DestConsumer,
		present: func(w *World) bool { return w.cfg.Extra.Consumer.On },
		build: func(w *World, spare model.Server) model.Server {
			cfg := w.cfg.Extra.Consumer.Model(w.topo.Leaders, w.topo.Brokers)
			cfg.ClientVersion = w.cfg.ClientVersionNumber()
			if c, ok := spare.(*consumer.Consumer); ok {
				c.Reset(cfg)
				return c
			}
			return consumer.New(cfg)
		},
		scratch: []string{"consumer.Consumer.obs", "consumer.Consumer.ids", "consumer.Consumer.log"}})
}
