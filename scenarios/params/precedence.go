package params

// Level is a level of the one order of precedence every parameter follows
// (docs/parameters.md). A value set at a level overrides the values of the
// levels below it; scenarios.Resolve applies the levels once each, weakest first.
type Level uint8

// The levels, weakest first.
const (
	// LevelDefault is the parameter's own default: Kafka's, where Kafka
	// has the setting (Kafka 3.0+ producer, Kafka 4.x broker).
	LevelDefault Level = iota
	// LevelProfile is a Kafka version profile: the defaults of
	// kafka.version, broker.version and client.version (profile.go).
	LevelProfile
	// LevelScenario is the scenario's own defaults (scenarios.Scenario.Defaults).
	LevelScenario
	// LevelPreset is a named preset ([Spec.Preset], -preset).
	LevelPreset
	// LevelFile is a scenario file's params ([Spec.FileSets]).
	LevelFile
	// LevelBug is the settings of the -bug IDs, in command-line order
	// ([Spec.Bugs]).
	LevelBug
	// LevelSet is the command line: -idempotence, then each -set in order
	// (in a sweep, then the point's -vary values and the mode)
	// ([Spec.Sets]).
	LevelSet
)

var levelNames = [...]string{"default", "profile", "scenario", "preset", "file", "-bug", "-set"}

// String returns the level's name as -describe prints it: default,
// profile, scenario, preset, file, -bug or -set.
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "unknown"
}

// Levels returns every level, weakest first.
func Levels() []Level {
	out := make([]Level, len(levelNames))
	for i := range out {
		out[i] = Level(i)
	}
	return out
}

// Source is where a parameter's value came from.
type Source struct {
	Level Level
	// Bug is the -bug ID that set the value, at LevelBug.
	Bug string
	// Profile is the side and release whose profile set the value, at
	// LevelProfile ("broker 3.5").
	Profile string
}

// String returns the level's name, and for a -bug its ID ("-bug Z11").
func (s Source) String() string {
	if s.Level == LevelBug && s.Bug != "" {
		return s.Level.String() + " " + s.Bug
	}
	if s.Level == LevelProfile && s.Profile != "" {
		return s.Level.String() + " " + s.Profile
	}
	return s.Level.String()
}

// Overrides are the values a run sets above a scenario's own (levels
// preset, file, -bug and -set): a run's spec carries them.
type Overrides struct {
	// Preset, if set, is the name of a preset (level "preset", -preset).
	Preset string
	// FileSets are a scenario file's parameter values, in file order
	// (level "file").
	FileSets []KV
	// Bugs are the -bug IDs whose settings apply, in order (level "-bug").
	Bugs []string
	// Sets are the command line's key=value overrides, in order (level
	// "-set").
	Sets []KV
}

// Apply sets, on top of a scenario's defaults (levels default and
// scenario), the overrides' scenario file values, -bug settings and -set
// values, in that order, after the preset, and then the Kafka version
// profile on what is still at its default (applyProfile). The error names
// the key, or the unknown bug or preset.
func (v *Values) Apply(spec Overrides) error {
	if spec.Preset != "" {
		p, err := LookupPreset(spec.Preset)
		if err != nil {
			return err
		}
		for _, kv := range p.Sets() {
			if err := v.SetFrom(Source{Level: LevelPreset}, kv.Key, kv.Value); err != nil {
				return err
			}
		}
	}
	for _, kv := range spec.FileSets {
		if err := v.SetFrom(Source{Level: LevelFile}, kv.Key, kv.Value); err != nil {
			return err
		}
	}
	for _, id := range spec.Bugs {
		b, err := LookupBug(id)
		if err != nil {
			return err
		}
		for _, kv := range b.Sets {
			if err := v.SetFrom(Source{Level: LevelBug, Bug: b.ID}, kv.Key, kv.Value); err != nil {
				return err
			}
		}
	}
	for _, kv := range spec.Sets {
		if err := v.SetFrom(Source{Level: LevelSet}, kv.Key, kv.Value); err != nil {
			return err
		}
	}
	return applyProfile(v)
}
