package params

import (
	"strconv"

	"github.com/idemsim/idemsim/model/client"
)

// EffectiveList returns the parameter list with the values that ran
// where Kafka's rules, or the scenario's own, changed a setting (each
// change has its configuration note): idempotence disabled implicitly,
// acks raised to all, a dropped transactional.id, an exactly-once
// application run at-least-once, a raised delivery.timeout.ms. A user
// reads the list as what the run did, so it never shows a value that
// did not run.
//
// set is the configuration as the parameters set it, eff and mode what
// ran; a value is replaced only where the two differ.
func EffectiveList(list []KV, set, eff client.ProducerConfig, setMode, mode AppMode) []KV {
	ran := map[string]string{}
	if set.EnableIdempotence != eff.EnableIdempotence {
		ran["enable.idempotence"] = strconv.FormatBool(eff.EnableIdempotence)
	}
	if set.Acks != eff.Acks {
		ran["acks"] = strconv.Itoa(int(eff.Acks))
		if eff.Acks == -1 {
			ran["acks"] = "all"
		}
	}
	if set.TransactionalID != eff.TransactionalID {
		ran["transactional.id"] = eff.TransactionalID
	}
	if set.TransactionRecords != eff.TransactionRecords {
		ran["transaction.records"] = strconv.Itoa(eff.TransactionRecords)
	}
	if setMode != mode {
		ran["app.mode"] = mode.String()
	}
	if set.DeliveryTimeout != eff.DeliveryTimeout {
		ran["delivery.timeout.ms"] = strconv.FormatInt(eff.DeliveryTimeout.Milliseconds(), 10)
	}
	for i := range list {
		if v, ok := ran[list[i].Key]; ok {
			list[i].Value = v
		}
	}
	return list
}

// IdempotenceConflict is the error a configuration with an explicit
// enable.idempotence=true and a setting idempotence does not allow
// resolves to ([client.IdempotenceConflict]).
type IdempotenceConflict = client.IdempotenceConflict
