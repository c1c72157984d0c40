package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/internal/validate"
	"github.com/idemsim/idemsim/scenarios"
)

// validateUsage is the head of "simulate validate -h".
const validateUsage = `usage: simulate validate -scenario NAME [-idempotence=BOOL] [-set key=value ...] -runs N [flags]

Runs the scenario twice and prints the two results side by side: in the
simulator (client.policy=franz-go), and against a real client and broker,
franz-go's kgo producer and an in-process kfake cluster (or -bootstrap),
over loopback TCP through a fault-injecting proxy that follows the same
loss, error and plan parameters. For each counter it reports both rates
with 95% intervals and an equivalence verdict (agree, disagree,
inconclusive) at the -margin it states.

The real side runs in real time: its results are statistical, not
byte-identical, and its runs have no trace hash or reproduce command.
See docs/validate.md.
`

// runValidate is "simulate validate".
func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		scenario    = fs.String("scenario", "", "scenario name (simulate -list marks those that support validate)")
		scenFile    = fs.String("scenario-file", "", "a scenario file (its base must support validate)")
		idempotence = fs.Bool("idempotence", true, "validate one mode only (default: every mode the scenario supports, off and on)")
		runs        = fs.Int("runs", 100, "real runs per mode")
		simRuns     = fs.Int("sim-runs", 0, "simulated runs per mode (default: 10 × -runs)")
		seedText    = fs.String("seed", "1", "first seed of both sides (the real side seeds only its proxy's draws)")
		marginText  = fs.String("margin", "0.05", "equivalence margin on each rate: absolute (0.05) or relative to the simulated rate (25%)")
		scale       = fs.Float64("time-scale", 0, "multiply the scenario's durations by this on the real side (default: the scenario's, see docs/validate.md)")
		bootstrap   = fs.String("bootstrap", "", "run the real side against your own Kafka cluster at host:port (a fresh topic per run) instead of kfake")
		out         = fs.String("out", "", "write runs.csv, summary.json, report.md and charts (SVG, PNG) to this directory")
		asJSON      = fs.Bool("json", false, "print summary.json instead of the report")
		parallel    = fs.Int("parallel", runtime.NumCPU(), "simulated runs at once (the real runs go one at a time)")
		client      = fs.String("client", "franz-go", "the real client: franz-go, or librdkafka (only in a build with -tags librdkafka; compared with client.policy=librdkafka)")
		planFile    = fs.String("plan-file", "", "replay the fault plan in `FILE` on every run of both sides instead of the seeds' plans")
		sets        setFlags
	)
	fs.Var(&sets, "set", "override a parameter, key=value (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(stderr, validateUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usageErr(stderr, fmt.Sprintf("validate: unexpected argument %q (flags only; see -h)", fs.Arg(0)))
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	cfg := validate.Config{Runs: *runs, SimRuns: *simRuns, Scale: *scale, Bootstrap: *bootstrap, Parallel: *parallel, Sets: sets, Client: *client}
	if cfg.SimRuns == 0 {
		cfg.SimRuns = 10 * cfg.Runs
	}
	switch {
	case *scenario != "" && *scenFile != "":
		return usageErr(stderr, "validate: -scenario and -scenario-file exclude each other")
	case *scenFile != "":
		data, err := os.ReadFile(*scenFile)
		if err != nil {
			return usageErr(stderr, "validate: -scenario-file: "+err.Error())
		}
		f, err := scenarios.ParseScenarioFile(*scenFile, data)
		if err != nil {
			return usageErr(stderr, err.Error())
		}
		cfg.Scenario, cfg.FileSets, cfg.PlanText = f.Scenario, f.Sets, f.Plan
	case *scenario == "":
		return usageErr(stderr, "validate: -scenario is required (supported: "+strings.Join(validateNames(), ", ")+")")
	default:
		sc, err := scenarios.Lookup(*scenario)
		if err != nil {
			return usageErr(stderr, "validate: -scenario: "+err.Error())
		}
		cfg.Scenario = sc
	}
	for _, kv := range sets {
		if kv.Key == "enable.idempotence" {
			return usageErr(stderr, "validate: -set enable.idempotence is not allowed (use -idempotence=false or true to keep one mode)")
		}
	}
	if *planFile != "" {
		text, err := os.ReadFile(*planFile)
		if err != nil {
			return usageErr(stderr, fmt.Sprintf("validate: -plan-file: cannot read %s: %v", *planFile, unwrapPath(err)))
		}
		cfg.PlanText = string(text)
	}
	b, err := strconv.ParseUint(*seedText, 10, 64)
	if err != nil {
		return usageErr(stderr, fmt.Sprintf("validate: -seed %q is not allowed (allowed: an integer 0..18446744073709551615)", *seedText))
	}
	cfg.Base = b
	m, err := parseMargin(*marginText)
	if err != nil {
		return usageErr(stderr, "validate: "+err.Error())
	}
	cfg.Margin = m
	if explicit["idempotence"] {
		cfg.Modes = []bool{*idempotence}
	}
	if *bootstrap != "" {
		if err := checkBootstrap(*bootstrap); err != nil {
			return usageErr(stderr, "validate: "+err.Error())
		}
	}
	if err := cfg.Check(); err != nil {
		return usageErr(stderr, "validate: "+err.Error())
	}
	ctx, stop := interruptContext()
	defer stop()
	bar := newProgress(stderr)
	total := int64(len(cfg.Modes) * cfg.Runs)
	var done int64
	cfg.Progress = func(bool, int, int) { done++; bar.update(done, total) }
	start := time.Now()
	res, err := validate.Validate(ctx, cfg)
	bar.finish()
	if err != nil {
		fmt.Fprintln(stderr, "simulate: validate: "+err.Error())
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return exitUsage
	}
	fmt.Fprintf(stderr, "simulate: validate took %.1fs\n", time.Since(start).Seconds())
	if *out != "" {
		if err := res.WriteDir(*out); err != nil {
			fmt.Fprintln(stderr, "simulate: validate: -out: "+err.Error())
			return exitUsage
		}
	}
	if *asJSON {
		j, err := res.JSON()
		if err == nil {
			_, err = stdout.Write(j)
		}
		if err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return exitUsage
		}
		return exitOK
	}
	if err := res.WriteText(stdout); err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return exitUsage
	}
	return exitOK
}

// parseMargin reads "0.05" (absolute) or "25%" (relative).
func parseMargin(s string) (validate.Margin, error) {
	rel := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !(v > 0) {
		return validate.Margin{}, fmt.Errorf("-margin %q is not allowed (allowed: a number > 0, or a percentage such as 25%%)", s)
	}
	if rel {
		v /= 100
	}
	return validate.Margin{Value: v, Relative: rel}, nil
}

// validateNames lists the scenarios that support validate.
func validateNames() []string {
	var n []string
	for _, s := range scenarios.All() {
		if _, ok := validate.Supports(s.Name); ok {
			n = append(n, s.Name)
		}
	}
	return n
}

// checkBootstrap checks a -bootstrap address: host:port.
func checkBootstrap(s string) error {
	host, port, ok := strings.Cut(s, ":")
	if !ok || host == "" || port == "" {
		return fmt.Errorf("-bootstrap %q is not allowed (allowed: host:port)", s)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("-bootstrap %q: bad port", s)
	}
	return nil
}

// listMarker is -list's marker of a scenario that supports validate.
func listMarker(name string) string {
	s, ok := validate.Supports(name)
	if !ok {
		return ""
	}
	switch {
	case s.Off && s.On:
		return " [validate]"
	case s.Off:
		return " [validate: idempotence off]"
	}
	return " [validate: idempotence on]"
}
