package scenarios

import "github.com/idemsim/idemsim/scenarios/params"

// StressValues returns the scenario's defaults that set a Kafka setting
// away from Kafka's default, each with Kafka's value
// ([params.StressValues]).
func (s *Scenario) StressValues() []params.StressValue { return params.StressValues(s.Defaults) }

// StressNote is the line -describe and a sweep's report print about the
// scenario's parameters ([params.StressNote]).
func (s *Scenario) StressNote() string { return params.StressNote(s.Defaults) }
