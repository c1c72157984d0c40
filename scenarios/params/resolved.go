package params

import (
	"fmt"
	"strconv"

	"github.com/idemsim/idemsim/model/client"
)

// Resolved is a run's configuration, resolved once before the run
// starts.
type Resolved struct {
	// Values are the parameters as text, each with where it came from.
	Values *Values
	// Config is the same parameters, typed; Values.Config returns it too.
	Config *Config
	// Producer is the effective producer configuration, after Kafka's
	// rules.
	Producer client.ProducerConfig
	// Notes are Kafka's configuration notes, e.g. idempotence turned off
	// implicitly.
	Notes []string
	// Params is Values.List(), made once: the runs that share this
	// resolution share it as their Result.Params (read-only).
	Params []KV
	// Versions is Config.VersionLabel(), made once.
	Versions string
}

// Resolve decodes v, with every level of precedence applied, into a
// run's configuration: the typed [params.Config] (once), the effective
// producer configuration after Kafka's rules, and the configuration
// notes. It checks the producer and network configurations; the error
// is one line naming the key.
func Resolve(v *Values) (*Resolved, error) {
	cfg, err := v.Settle()
	if err != nil {
		return nil, err
	}
	set, setMode := cfg.ProducerConfig(), cfg.App.Mode
	pc := cfg.ProducerConfig()
	pc.IdempotenceExplicit = v.Explicit("enable.idempotence")
	// As Kafka's KafkaProducer.configureDeliveryTimeout: an explicit
	// delivery.timeout.ms below linger.ms + request.timeout.ms is refused;
	// a default one is raised, with a note.
	pc.DeliveryTimeoutExplicit = v.Explicit("delivery.timeout.ms")
	var preNotes []string
	if pc.EnableIdempotence && pc.IdempotenceExplicit && pc.Acks != -1 && !v.Explicit("acks") {
		// The scenario's own acks (acks1) yields to an explicit
		// enable.idempotence=true, as an unset acks does in Kafka 3.0+
		// (ProducerConfig.postProcessAndValidateIdempotenceConfigs:
		// idempotence needs acks=all, and acks left unset is all).
		preNotes = append(preNotes, "acks="+strconv.Itoa(int(pc.Acks))+" raised to all: idempotence needs acks=all")
		pc.Acks = -1
	}
	if !pc.EnableIdempotence && pc.TransactionalID != "" && !v.Explicit("transactional.id") {
		// The scenario's own transactional.id cannot stand without
		// idempotence (Kafka refuses it); a scenario run with
		// -idempotence=false drops it, and says so.
		preNotes = append(preNotes, "transactional.id="+pc.TransactionalID+" dropped: it needs idempotence")
		pc.TransactionalID = ""
		pc.TransactionRecords = 0
	}
	if cfg.Producer.NagleDisable && !cfg.Producer.Policy.Nagle() {
		// Only librdkafka's sockets run Nagle's algorithm
		// (model/client/nagle.go): elsewhere the setting would do nothing.
		return nil, fmt.Errorf("socket.nagle.disable=true with client.policy=%s: that client always sets TCP_NODELAY, so there is no Nagle hold to turn off (allowed: socket.nagle.disable=true with client.policy=librdkafka)", cfg.Producer.Policy)
	}
	if pc.TransactionalID != "" && pc.TransactionRecords == 0 && !cfg.Producer.WhatIfFenceOnly {
		// KafkaProducer.send -> TransactionManager.maybeAddPartition
		// throws outside a transaction.
		return nil, fmt.Errorf("transactional.id=%s needs transaction.records > 0: Kafka's send() outside a transaction throws IllegalStateException (\"Cannot add partition ... to transaction while in state  READY\", TransactionManager.maybeAddPartition); set transaction.records, or producer.whatif.fence_only=true for that what-if", pc.TransactionalID)
	}
	if cfg.App.Mode.ExactlyOnce() && (pc.TransactionalID == "" || pc.TransactionRecords == 0) {
		if !pc.EnableIdempotence && cfg.App.Mode.Grouped() {
			preNotes = append(preNotes, "app.mode="+cfg.App.Mode.String()+" needs transactions: without idempotence the instances' consumers auto-commit their positions (every 5s) and a new owner reads from the last commit (at least once)")
		} else if !pc.EnableIdempotence && !v.Explicit("app.mode") {
			preNotes = append(preNotes, "app.mode=exactly-once needs transactions: without idempotence the application runs at-least-once")
			cfg.App.Mode = AppAtLeastOnce
		} else {
			return nil, fmt.Errorf("app.mode=%s needs transactions: set transactional.id and transaction.records > 0 (with idempotence on)", cfg.App.Mode)
		}
	}
	if err := cfg.CheckInput(); err != nil {
		return nil, err
	}
	eff, notes, err := pc.Resolve()
	if err != nil {
		return nil, err
	}
	notes = append(preNotes, notes...)
	notes = append(notes, v.DesignNotes()...)
	if err := v.Config().Net.Validate(); err != nil {
		return nil, err
	}
	return &Resolved{Values: v, Config: cfg, Producer: eff, Notes: notes, Params: EffectiveList(v.List(), set, eff, setMode, cfg.App.Mode), Versions: cfg.VersionLabel()}, nil
}
