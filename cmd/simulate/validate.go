package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/internal/validate"
	"github.com/idemsim/idemsim/scenarios"
)

// validateUsage is the head of "simulate validate -h".
const validateUsage = `usage: simulate validate -scenario NAME [-idempotence=BOOL] [-set key=value ...] [-runs N|auto] [-budget D] [flags]
       simulate validate -all [-budget D] [-o FILE] [flags]

Runs the scenario twice and prints the two results side by side: in the
simulator (client.policy=franz-go), and against a real client and broker,
franz-go's kgo producer and an in-process kfake cluster (or -bootstrap),
over loopback TCP through a fault-injecting proxy that follows the same
loss, error and plan parameters. For each counter it reports both rates
with 95% intervals and an equivalence verdict (agree, disagree,
inconclusive) at the -margin it states (default 20% of the simulated
rate, at least 0.002), and the real runs that would decide it.

-runs auto runs real runs until the verdict is decided or -budget runs
out. -all runs every catalogue scenario, mode and client that can run
(a scoreboard; refused cells give their reason) within -budget, and
with -o FILE writes it as markdown (docs/validation.md).

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
		runsText    = fs.String("runs", "100", "real runs per mode: a number, or auto (until the verdict is decided or -budget runs out)")
		simRuns     = fs.Int("sim-runs", 0, "simulated runs per mode (default: 10 × -runs; 5000 with -runs auto or -all)")
		budgetText  = fs.String("budget", "", "wall-time budget of the whole command, a Go duration such as 5m (default: none; 5m with -runs auto or -all); when it runs out the report holds what was decided so far")
		all         = fs.Bool("all", false, "the scoreboard: every catalogue scenario × mode × client, each with -runs auto, within -budget")
		outFile     = fs.String("o", "", "with -all: write the scoreboard as markdown to `FILE` (its directory must exist), e.g. docs/validation.md")
		only        = fs.String("only", "", "with -all and -o: run only these scenarios' cells (comma-separated names) and replace their rows in the scoreboard already in -o, keeping the others")
		floorText   = fs.String("margin-floor", "0.002", "the least margin of a relative -margin, absolute on the rate (0 for none)")
		seedText    = fs.String("seed", "1", "first seed of both sides (the real side seeds only its proxy's draws)")
		marginText  = fs.String("margin", "20%", "equivalence margin on each rate: relative to the simulated rate (20%, at least -margin-floor) or absolute (0.05)")
		scale       = fs.Float64("time-scale", 0, "multiply the scenario's durations by this on the real side (default: the scenario's, see docs/validate.md)")
		bootstrap   = fs.String("bootstrap", "", "run the real side against your own Kafka cluster at host:port (a fresh topic per run) instead of kfake")
		out         = fs.String("out", "", "write runs.csv, summary.json, report.md and charts (SVG, PNG) to this directory")
		asJSON      = fs.Bool("json", false, "print summary.json instead of the report")
		parallel    = fs.Int("parallel", runtime.NumCPU(), "simulated runs at once (the real runs go one at a time)")
		client      = fs.String("client", "franz-go", "the real client: franz-go, librdkafka (only in a build with -tags librdkafka; compared with client.policy=librdkafka), or sarama (IBM/sarama, compared with the Java client 3.6, one request in flight)")
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
	m, err := parseMargin(*marginText, *floorText)
	if err != nil {
		return usageErr(stderr, "validate: "+err.Error())
	}
	budget, err := parseBudget(*budgetText, explicit["budget"])
	if err != nil {
		return usageErr(stderr, "validate: "+err.Error())
	}
	b, err := strconv.ParseUint(*seedText, 10, 64)
	if err != nil {
		return usageErr(stderr, fmt.Sprintf("validate: -seed %q is not allowed (allowed: an integer 0..18446744073709551615)", *seedText))
	}
	if *simRuns < 0 || *simRuns > 10000000 {
		return usageErr(stderr, fmt.Sprintf("validate: -sim-runs %d is not allowed (allowed: 1..10000000)", *simRuns))
	}
	if *all {
		for _, name := range []string{"scenario", "scenario-file", "idempotence", "runs", "time-scale", "bootstrap", "out", "json", "client", "plan-file", "set"} {
			if explicit[name] {
				return usageErr(stderr, "validate: -"+name+" is not allowed with -all (it runs every scenario, mode and client with -runs auto; allowed with it: -budget, -o, -only, -margin, -margin-floor, -seed, -sim-runs, -parallel)")
			}
		}
		a := validate.AllConfig{Budget: budget, Margin: m, Base: b, SimRuns: *simRuns, MaxRuns: autoMaxRuns, Parallel: *parallel}
		if explicit["only"] {
			names, err := parseOnly(*only, *outFile)
			if err != nil {
				return usageErr(stderr, "validate: "+err.Error())
			}
			a.Only = names
		}
		return runValidateAll(args, a, *outFile, stdout, stderr)
	}
	if explicit["only"] {
		return usageErr(stderr, "validate: -only needs -all and -o (it replaces some scenarios' rows of a scoreboard)")
	}
	if *outFile != "" {
		return usageErr(stderr, "validate: -o is the scoreboard's file and needs -all (a single validate writes its files with -out DIR)")
	}
	cfg := validate.Config{SimRuns: *simRuns, Scale: *scale, Bootstrap: *bootstrap, Parallel: *parallel, Sets: sets, Client: *client, Margin: m, Base: b, Budget: budget}
	if *runsText == "auto" {
		cfg.Auto, cfg.Runs = true, autoMaxRuns
		if cfg.Budget == 0 {
			cfg.Budget = defaultBudget
		}
		if cfg.SimRuns == 0 {
			cfg.SimRuns = autoSimRuns
		}
	} else {
		n, err := strconv.Atoi(*runsText)
		if err != nil || n < 1 || n > 100000 {
			return usageErr(stderr, fmt.Sprintf("validate: -runs %q is not allowed (allowed: 1..100000, or auto)", *runsText))
		}
		cfg.Runs = n
	}
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
	if cfg.Auto {
		total = -1 // unknown: a spinner
	}
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

// Defaults of -runs auto and -all.
const (
	defaultBudget = 5 * time.Minute
	autoSimRuns   = 5000   // simulated runs per mode: a few seconds, and an interval that rarely limits the comparison
	autoMaxRuns   = 100000 // real runs per mode at most
)

// parseMargin reads "20%" (relative, at least floor) or "0.05"
// (absolute; the floor does not apply).
func parseMargin(s, floorText string) (validate.Margin, error) {
	rel := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !(v > 0) || v > 1e6 {
		return validate.Margin{}, fmt.Errorf("-margin %q is not allowed (allowed: a percentage of the simulated rate such as 20%%, or an absolute number > 0 such as 0.05)", s)
	}
	floor, err := strconv.ParseFloat(floorText, 64)
	if err != nil || !(floor >= 0) || floor > 1 {
		return validate.Margin{}, fmt.Errorf("-margin-floor %q is not allowed (allowed: a number 0..1, absolute on the rate)", floorText)
	}
	if rel {
		return validate.Margin{Value: v / 100, Relative: true, Floor: floor}, nil
	}
	return validate.Margin{Value: v}, nil
}

// parseOnly reads -only: scenario names of the catalogue, comma-separated,
// each once; -o must name a scoreboard file that exists.
func parseOnly(list, outFile string) ([]string, error) {
	if outFile == "" {
		return nil, fmt.Errorf("-only needs -o FILE, the scoreboard whose rows it replaces")
	}
	old, err := os.ReadFile(outFile)
	if err != nil || !strings.HasPrefix(string(old), validate.ScoreboardTitle) {
		return nil, fmt.Errorf("-only: -o %s is not a scoreboard (allowed: a file written by validate -all -o)", outFile)
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if _, err := scenarios.Lookup(n); err != nil || n == "" {
			return nil, fmt.Errorf("-only %q: %q is not a catalogue scenario (allowed: comma-separated names from simulate -list)", list, n)
		}
		if slices.Contains(names, n) {
			return nil, fmt.Errorf("-only %q: %s is named twice (allowed: each scenario once)", list, n)
		}
		names = append(names, n)
	}
	return names, nil
}

// parseBudget reads -budget: a positive Go duration; "" (not given) is
// 0, no budget.
func parseBudget(s string, given bool) (time.Duration, error) {
	if !given {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > 1000*time.Hour {
		return 0, fmt.Errorf("-budget %q is not allowed (allowed: a positive Go duration up to 1000h, such as 90s or 5m)", s)
	}
	return d, nil
}

// runValidateAll is "simulate validate -all": the scoreboard.
func runValidateAll(args []string, a validate.AllConfig, outFile string, stdout, stderr io.Writer) int {
	if a.Budget == 0 {
		a.Budget = defaultBudget
	}
	if a.SimRuns == 0 {
		a.SimRuns = autoSimRuns
	}
	if outFile != "" {
		// Check the file can be written before spending the budget.
		if st, err := os.Stat(filepath.Dir(outFile)); err != nil || !st.IsDir() {
			return usageErr(stderr, fmt.Sprintf("validate: -o %s: its directory %s does not exist (allowed: a file in an existing directory)", outFile, filepath.Dir(outFile)))
		}
		if st, err := os.Stat(outFile); err == nil && st.IsDir() {
			return usageErr(stderr, fmt.Sprintf("validate: -o %s is a directory (allowed: a file)", outFile))
		}
	}
	ctx, stop := interruptContext()
	defer stop()
	fmt.Fprintf(stderr, "simulate: validate -all: every scenario, mode and client within a budget of %v\n", a.Budget)
	a.Start = func(c validate.Cell, k, n int) {
		fmt.Fprintf(stderr, "simulate: validate -all: %d/%d %s\n", k, n, c.Key())
	}
	sb, err := validate.RunAll(ctx, a)
	if err != nil && sb == nil {
		return usageErr(stderr, "validate: "+err.Error())
	}
	words := make([]string, 0, len(args)+2)
	words = append(words, "simulate", "validate")
	for _, w := range args {
		words = append(words, shellQuote(w))
	}
	sb.Command = strings.Join(words, " ")
	if err != nil {
		// Interrupted: show what was done, write nothing.
		sb.WriteText(stdout)
		fmt.Fprintln(stderr, "simulate: validate -all: "+err.Error()+"; "+outFileNote(outFile))
		return exitInterrupted
	}
	if outFile != "" {
		var md strings.Builder
		if len(a.Only) > 0 {
			old, err := os.ReadFile(outFile)
			if err != nil {
				return usageErr(stderr, "validate: -o: "+err.Error())
			}
			if err := sb.MergeMarkdown(string(old), a.Only, &md); err != nil {
				return usageErr(stderr, "validate: -only: -o "+outFile+": "+err.Error())
			}
		} else if err := sb.WriteMarkdown(&md); err != nil {
			return usageErr(stderr, "validate: "+err.Error())
		}
		if err := writeFileAtomic(outFile, []byte(md.String())); err != nil {
			return usageErr(stderr, "validate: -o: "+err.Error())
		}
	}
	if err := sb.WriteText(stdout); err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return exitUsage
	}
	return exitOK
}

// outFileNote says what happened to -o after an interruption.
func outFileNote(f string) string {
	if f == "" {
		return "nothing written"
	}
	return f + " not written"
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
