package world

import "github.com/idemsim/idemsim/scenarios/params"

// Resolve decodes v into a run's configuration ([params.Resolve]).
func Resolve(v *params.Values) (*Resolved, error) { return params.Resolve(v) }
