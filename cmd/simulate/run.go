package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/internal/history"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/explain"
	"github.com/idemsim/idemsim/scenarios/htmlpage"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Exit codes.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
)

// setFlags collects repeated -set key=value flags.
type setFlags []params.KV

func (s *setFlags) String() string { return "" }

func (s *setFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	*s = append(*s, params.KV{Key: k, Value: val})
	return nil
}

// run is the whole command; main only exits with its result.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		seedText    = fs.String("seed", "", "run seed, 0..18446744073709551615 (default: a random seed, printed); with -runs, the first seed (default 1)")
		scenario    = fs.String("scenario", "", "scenario name (see -list)")
		scenFile    = fs.String("scenario-file", "", "run the scenario described in a YAML file (see README)")
		idempotence = fs.Bool("idempotence", true, "enable.idempotence (Kafka 3.0+ default: on)")
		trace       = fs.Bool("trace", false, "also print the timeline")
		verbose     = fs.Bool("v", false, "list every parameter in the report (default: those that differ from their defaults)")
		asJSON      = fs.Bool("json", false, "print one JSON object instead of the report")
		list        = fs.Bool("list", false, "list the scenarios")
		describe    = fs.String("describe", "", "describe a scenario: story, parameters, expectations")
		showPlan    = fs.Bool("plan", false, "print the run's fault plan (docs/plans.md) and exit without running")
		planOut     = fs.String("plan-out", "", "save the run's fault plan to `FILE`, then run")
		planFile    = fs.String("plan-file", "", "replay the fault plan in `FILE` instead of generating one from the seed")
		version     = fs.Bool("version", false, "print the simulator's version and exit")
		maxEvents   = fs.Int64("max-events", 0, "stop the run after `N` events, 1..9223372036854775807 (default: 50000000); the report's stop is then event-limit")
		sets        setFlags
		sw          sweepFlags
	)
	fs.Var(&sets, "set", "override a parameter, key=value (repeatable; see -describe)")
	var bugs []string
	fs.Func("bug", "turn a documented defect on, by ID (repeatable; -describe SCENARIO lists its defects)", func(id string) error {
		b, err := params.LookupBug(id)
		if err != nil {
			return err
		}
		bugs = append(bugs, b.ID)
		return nil
	})
	preset := ""
	fs.Func("preset", "apply a named preset of parameter values (level preset, below a scenario file, -bug and -set): kafka-defaults runs the scenario with Kafka's own client and broker defaults instead of its stress values", func(name string) error {
		p, err := params.LookupPreset(name)
		if err != nil {
			return err
		}
		preset = p.Name
		return nil
	})
	sw.register(fs)
	ex := addExplainFlags(fs) // explain.go
	hist := addHistoryFlag(fs)
	page := addHTMLFlag(fs)   // html.go
	xf := addExploreFlags(fs) // explore.go
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: simulate -seed N -scenario NAME [flags]")
		fmt.Fprintln(stderr, "       simulate -scenario NAME -runs N [-seed BASE] [-parallel P] [-vary key=FROM:TO:STEP] [-out DIR] [flags]")
		fmt.Fprintln(stderr, "       simulate -explore -scenario NAME -max-faults K [-explore-budget RUNS] [-out DIR] [flags]")
		fmt.Fprintln(stderr, "       simulate merge -out DIR SHARD_DIR...")
		fmt.Fprintln(stderr, "       simulate selfcheck -runs N [-seed S] [-scenario-file F]... [flags]")
		fmt.Fprintln(stderr, "       simulate validate -scenario NAME -runs N [-set key=value] [-margin M] [-out DIR]   (a real client against kfake; simulate validate -h)")
		fs.PrintDefaults()
	}
	if len(args) > 0 && args[0] == "merge" {
		return runMerge(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "selfcheck" {
		return runSelfcheck(args[1:], stdout, stderr) // selfcheck.go
	}
	if len(args) > 0 && args[0] == "validate" {
		return runValidate(args[1:], stdout, stderr) // validate.go
	}
	if code, ok := parseFlags(fs, args, "simulate", stderr); !ok {
		return code
	}
	if *version {
		fmt.Fprintln(stdout, "simulate "+scenarios.Version)
		return exitOK
	}
	if fs.NArg() > 0 {
		return usageErr(stderr, fmt.Sprintf("unexpected argument %q (flags only; see -h)", fs.Arg(0)))
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if msg := conflicts(fs, explicit, *idempotence, bugs, sets, sw.vary); msg != "" {
		return usageErr(stderr, msg)
	}
	if *list {
		writeList(stdout, scenarios.All())
		return exitOK
	}
	// The command line's values (level -set): -idempotence, then each
	// -set in order.
	cmdSets := []params.KV{}
	if explicit["idempotence"] {
		cmdSets = append(cmdSets, params.KV{Key: "enable.idempotence", Value: strconv.FormatBool(*idempotence)})
	}
	cmdSets = append(cmdSets, sets...)
	if *describe != "" {
		sc, err := scenarios.Lookup(*describe)
		if err != nil {
			return usageErr(stderr, "-describe: "+err.Error())
		}
		res, err := scenarios.Resolve(scenarios.Spec{Scenario: sc, Bugs: bugs, Sets: cmdSets, Preset: preset})
		if err != nil {
			return usageErr(stderr, err.Error())
		}
		writeDescription(stdout, sc, res)
		return exitOK
	}
	var sc *scenarios.Scenario
	var fileSets []params.KV
	var filePlan string
	var filePlanLine int
	switch {
	case *scenario != "" && *scenFile != "":
		return usageErr(stderr, "-scenario and -scenario-file exclude each other")
	case *scenFile != "":
		data, err := os.ReadFile(*scenFile)
		if err != nil {
			return usageErr(stderr, "-scenario-file: "+err.Error())
		}
		f, err := scenarios.ParseScenarioFile(*scenFile, data)
		if err != nil {
			return usageErr(stderr, err.Error())
		}
		sc, fileSets, filePlan, filePlanLine = f.Scenario, f.Sets, f.Plan, f.PlanLine
	case *scenario == "":
		return usageErr(stderr, "-scenario is required (known: "+strings.Join(scenarios.Names(), ", ")+")")
	default:
		var err error
		if sc, err = scenarios.Lookup(*scenario); err != nil {
			return usageErr(stderr, "-scenario: "+err.Error())
		}
	}
	// Above the scenario's defaults, a run's levels of precedence are,
	// weakest first (docs/parameters.md): the scenario file's values, the
	// -bug settings and the command line's values.
	if *xf.explore {
		return runExplore(exploreArgs{sc: sc, scenFile: *scenFile, seedText: *seedText, file: fileSets, bugs: bugs, sets: cmdSets,
			asJSON: *asJSON, filePlan: filePlan != "", f: xf, sw: &sw, explicit: explicit}, stdout, stderr) // explore.go
	}
	for _, name := range exploreOnly {
		if explicit[name] {
			return usageErr(stderr, "-"+name+" is only allowed with -explore")
		}
	}
	if explicit["runs"] && explicit["html"] {
		return usageErr(stderr, "-html is not allowed with -runs (a sweep with -out DIR writes index.html and a page per kept failing seed into DIR)")
	}
	if explicit["runs"] {
		if *trace {
			return usageErr(stderr, "-trace is not allowed with -runs (trace one run: drop -runs)")
		}
		if explicit["max-events"] {
			return usageErr(stderr, "-max-events is not allowed with -runs (a sweep's runs use the default limit; bound one run: drop -runs)")
		}
		if msg := singleRunOnly(explicit); msg != "" {
			return usageErr(stderr, msg)
		}
		a := sweepArgs{sc: sc, seedText: *seedText, explicitIdem: explicit["idempotence"],
			idempotence: *idempotence, file: fileSets, bugs: bugs, sets: sets, preset: preset, asJSON: *asJSON, f: &sw,
			scenFile: *scenFile, explicit: explicit, history: hist}
		if filePlan != "" {
			a.planText, a.planSource = filePlan, world.PlanSource{File: *scenFile, Embedded: true, Line: filePlanLine}
		}
		if *planFile != "" {
			text, err := os.ReadFile(*planFile)
			if err != nil {
				return usageErr(stderr, fmt.Sprintf("-plan-file: cannot read %s: %v", *planFile, unwrapPath(err)))
			}
			a.planText, a.planSource = string(text), world.PlanSource{File: *planFile}
		}
		return runSweep(a, stdout, stderr)
	}
	for _, name := range sweepOnly {
		if explicit[name] {
			return usageErr(stderr, "-"+name+" is only allowed in a sweep (add -runs N)")
		}
	}
	if explicit["max-events"] && *maxEvents < 1 {
		return usageErr(stderr, fmt.Sprintf("-max-events %d is not allowed (allowed: 1..9223372036854775807)", *maxEvents))
	}
	if msg := hist.checkFile(*ex.shrink); msg != "" {
		return usageErr(stderr, msg)
	}
	if msg := page.check(*ex.shrink); msg != "" {
		return usageErr(stderr, msg)
	}
	var seed uint64
	var err error
	if *seedText == "" {
		if seed, err = randomSeed(); err != nil {
			return usageErr(stderr, "cannot draw a random seed: "+err.Error())
		}
	} else if seed, err = strconv.ParseUint(*seedText, 10, 64); err != nil {
		return usageErr(stderr, fmt.Sprintf("-seed %q is not allowed (allowed: an integer 0..18446744073709551615)", *seedText))
	}
	spec := scenarios.Spec{Scenario: sc, Seed: seed, FileSets: fileSets, Bugs: bugs, Sets: cmdSets, Preset: preset,
		KeepTrace: *trace, ScenarioFile: *scenFile, MaxEvents: *maxEvents}
	if filePlan != "" {
		spec.PlanText = filePlan
		spec.PlanSource = world.PlanSource{File: *scenFile, Embedded: true, Line: filePlanLine}
	}
	if *planFile != "" {
		text, err := os.ReadFile(*planFile)
		if err != nil {
			return usageErr(stderr, fmt.Sprintf("-plan-file: cannot read %s: %v", *planFile, unwrapPath(err)))
		}
		spec.PlanText, spec.PlanSource = string(text), world.PlanSource{File: *planFile}
	}
	if *showPlan || *planOut != "" {
		text, err := scenarios.PlanText(spec)
		if err != nil {
			return usageErr(stderr, err.Error())
		}
		text = faults.FileText(text)
		if *showPlan {
			fmt.Fprint(stdout, text)
			return exitOK
		}
		if err := os.WriteFile(*planOut, []byte(text), 0o644); err != nil {
			return usageErr(stderr, fmt.Sprintf("-plan-out: cannot write %s: %v", *planOut, unwrapPath(err)))
		}
	}
	if code, done := ex.run(spec, *planOut, stdout, stderr); done { // explain.go
		return code
	}
	var rec *explain.Recorder
	if ex.record() {
		rec = explain.Record(&spec)
	}
	var hrec *history.Recorder
	if hist.on() {
		hrec = history.Record(&spec)
	}
	var prec *htmlpage.Recorder
	if page.on() {
		prec = htmlpage.Record(&spec)
	}
	res, err := scenarios.Run(spec)
	if err != nil {
		return usageErr(stderr, err.Error())
	}
	if *asJSON {
		if err := writeJSONTrace(stdout, res, *trace); err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return exitUsage
		}
	} else {
		writeReport(stdout, res, *trace, *verbose)
	}
	if code := ex.draw(res, rec.Log(), stderr); code != exitOK { // explain.go
		return code
	}
	if code := hist.writeRun(hrec.History(), stderr); code != exitOK { // history.go
		return code
	}
	if code := page.write(res, prec.Run(), stderr); code != exitOK { // html.go
		return code
	}
	if res.HasViolations() {
		return exitViolation
	}
	return exitOK
}

// writeJSON prints a run's -json report: one indented JSON object.
func writeJSON(w io.Writer, res *scenarios.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// unwrapPath drops the path and operation of an *os.PathError, which the
// message names already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func usageErr(w io.Writer, msg string) int {
	fmt.Fprintln(w, "simulate: "+msg)
	return exitUsage
}
