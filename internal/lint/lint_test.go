package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/idemsim/idemsim"

// allowed lists, per package directory, the project packages it may import.
// Standard-library imports are always allowed; third-party imports only
// where listed with a trailing "*" prefix rule.
var allowed = map[string][]string{
	"sim":    {},
	"model":  {"sim"},
	"net":    {"sim"},
	"faults": {"sim", "net"},
	"check":  {"sim", "model"},
	// The node packages: each imports the protocol (model) and none of
	// the others, but the broker, which drives its partitions' logs.
	"model/client":      {"sim", "model"},
	"model/consumer":    {"sim", "model"},
	"model/admin":       {"sim", "model"},
	"model/storage":     {"sim", "model"},
	"model/broker":      {"sim", "model", "model/storage"},
	"model/coordinator": {"sim", "model"},
	"model/controller":  {"sim", "model"},
	// A run's parameters, their levels of precedence and the typed
	// Config they decode into: the settings of the model, the network and
	// the fault generator, nothing that runs.
	"scenarios/params": {"model", "model/client", "model/consumer", "net", "faults"},
	// The trace writer reads observations and nothing else.
	"scenarios/trace": {"sim", "model"},
	// The World: node table, routing, faults, readers, state hashes, the
	// scripted mode. It knows no catalogue scenario: a Setup says what
	// to build.
	"scenarios/world": {"sim", "model", "model/client", "model/consumer", "model/admin", "model/storage", "model/broker", "model/coordinator", "model/controller", "net", "faults", "check", "scenarios/params", "scenarios/trace", "scenarios/world/internal/store", "scenarios/world/internal/repl", "scenarios/world/internal/tally", "scenarios/world/internal/hashwalk", "scenarios/world/internal/outbuf", "scenarios/world/internal/input", "scenarios/world/internal/topo", "scenarios/world/internal/scriptcfg", "scenarios/world/internal/snapshot"},
	// The World's compact containers (id table, bitset, record window).
	"scenarios/world/internal/store": {"sim", "model", "scenarios/world/internal/hashwalk"},
	// The World's replication helpers that need no World: the replica
	// assignment, the replication messages, idle replication's checks.
	"scenarios/world/internal/repl":  {"sim", "model", "model/broker", "model/controller", "net"},
	"scenarios/world/internal/tally": {"model", "net"},
	// The World's per-depth effect buffers.
	"scenarios/world/internal/outbuf": {"model"},
	// The applications' input topic: layout, records, consumer config.
	"scenarios/world/internal/input": {"model", "model/client", "model/consumer", "model/storage"},
	// The state hash's reflection walk: it knows no World type.
	"scenarios/world/internal/hashwalk":  {},
	"scenarios/world/internal/topo":      {},
	"scenarios/world/internal/scriptcfg": {"model", "net", "scenarios/params"},
	"scenarios/world/internal/snapshot":  {},
	// The catalogue as data over world.Builder; Spec, Resolve, Run,
	// Result, scenario files.
	"scenarios": {"sim", "model", "net", "faults", "check", "scenarios/params", "scenarios/world", "ext:go.yaml.in/yaml/v3"},
	// What a run can be turned into to look at: its event log, a
	// sequence diagram, a shrunk plan. It reads runs through scenarios'
	// exported API (a Reader made from the run's Layout, Run).
	"scenarios/explain": {"scenarios", "scenarios/world", "scenarios/params", "scenarios/trace", "check", "faults", "model", "sim"},
	// A run as one self-contained HTML page, and a sweep's index page: a
	// reader of the observation stream (made from the run's Layout) with
	// its own trace writer, and the page's embedded script and styles.
	"scenarios/htmlpage": {"scenarios", "scenarios/world", "scenarios/params", "scenarios/trace", "check", "faults", "model", "sim"},
	"plots":              {"sim", "ext:gonum.org/"},
	// Splitting a sweep or an exploration into shards and checking the
	// shards' directories at a merge: the standard library only.
	"internal/shard": {},
	// The sweep engine runs many worlds on goroutines (each run stays
	// single-threaded) and turns summaries into charts.
	"internal/sweep": {"scenarios", "scenarios/world", "scenarios/params", "check", "plots", "internal/shard", "ext:gonum.org/"},
	// The explorer runs many worlds (on goroutines, each run
	// single-threaded) with faults from the plan language.
	"internal/explore": {"scenarios", "scenarios/world", "scenarios/params", "scenarios/explain", "faults", "sim", "net", "internal/shard"},
	// The interaction harness is a front end over the World's scripted
	// mode: it parses datadriven scripts and re-implements no node.
	"internal/simtest": {"scenarios", "scenarios/world", "scenarios/params", "model", "model/storage", "sim", "net", "check", "ext:github.com/cockroachdb/datadriven"},
	// A run's client-visible history: a reader of its observation stream
	// (made from the run's Layout) and the writers of its two forms.
	"internal/history": {"scenarios", "scenarios/world", "model", "sim"},
	// The second checker reads nothing but an exported history: the
	// standard library only.
	"internal/historycheck": {},
	// A field-by-field comparison for tests and the self-check: the
	// standard library only.
	"internal/fieldcmp": {},
	// The lint tests themselves: the standard library only.
	"internal/lint": {},
	// The measurement of the produce round trip's path through the
	// source files works on source and builds the world instrumented
	// through an overlay: the standard library only.
	"internal/callpath": {},
	// validate runs real Kafka clients against real brokers beside the
	// simulator: it may import the clients, which nothing above may.
	"internal/validate": {"internal/validate/proxy", "internal/validate/groupapp", "internal/leaktest", "scenarios", "scenarios/world", "scenarios/params", "faults", "model", "net", "plots", "ext:github.com/twmb/franz-go", "ext:github.com/confluentinc/confluent-kafka-go", "ext:github.com/IBM/sarama", "ext:github.com/rcrowley/go-metrics", "ext:gonum.org/"},
	// validate's proxy reads the Kafka framing with franz-go's kmsg and
	// kerr, and the simulated network's latency draws.
	"internal/validate/proxy":    {"net", "ext:github.com/twmb/franz-go"},
	"internal/validate/groupapp": {"internal/validate/proxy", "net", "scenarios/world", "ext:github.com/twmb/franz-go", "ext:github.com/IBM/sarama", "ext:github.com/rcrowley/go-metrics"},
	"internal/leaktest":          {},
	"cmd/simulate":               {"*"},
}

// realClients are the module paths of real Kafka clients and brokers.
// Only internal/validate and the command may import them: the simulator
// never does (TestNoRealClients).
var realClients = []string{"github.com/twmb/franz-go", "github.com/confluentinc/confluent-kafka-go", "github.com/IBM/sarama"}

// world is the simulated world: no wall clock, no unseeded randomness, no
// goroutines.
var world = []string{"sim", "model", "model/client", "model/consumer", "model/admin", "model/storage", "model/broker", "model/coordinator", "model/controller", "net", "faults", "check", "scenarios/params", "scenarios/trace", "scenarios/world", "scenarios/world/internal/store", "scenarios/world/internal/repl", "scenarios/world/internal/tally", "scenarios/world/internal/hashwalk", "scenarios/world/internal/outbuf", "scenarios/world/internal/input", "scenarios/world/internal/topo", "scenarios/world/internal/scriptcfg", "scenarios/world/internal/snapshot", "scenarios", "scenarios/explain", "scenarios/htmlpage"}

func root(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("go.mod not found")
		}
		dir = up
	}
}

type file struct {
	pkg  string // directory relative to the root
	path string
	f    *ast.File
	test bool
}

func parseAll(t *testing.T) []file {
	r := root(t)
	var out []file
	fset := token.NewFileSet()
	err := filepath.WalkDir(r, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != r {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r, filepath.Dir(p))
		out = append(out, file{pkg: filepath.ToSlash(rel), path: p, f: f, test: strings.HasSuffix(p, "_test.go")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// TestImportMatrix enforces who may import whom (sim is the leaf; model and
// net import only sim; faults is the plan language over net; check reads
// model's observations; scenarios wires; plots never runs a simulation).
func TestImportMatrix(t *testing.T) {
	for _, f := range parseAll(t) {
		if f.test {
			continue
		}
		rules, ok := allowed[f.pkg]
		if !ok {
			t.Errorf("%s: package %s has no row in the import matrix (allowed, internal/lint/lint_test.go)", f.path, f.pkg)
			continue
		}
		for _, im := range f.f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if isStd(p) || slicesContains(rules, "*") {
				continue
			}
			if strings.HasPrefix(p, module+"/") {
				dep := strings.TrimPrefix(p, module+"/")
				if !slicesContains(rules, dep) {
					t.Errorf("%s: package %s may not import %s (allowed: %v)", f.path, f.pkg, dep, rules)
				}
				continue
			}
			ok := false
			for _, r := range rules {
				if r == "ext:*" || strings.HasPrefix(r, "ext:") && strings.HasPrefix(p, strings.TrimPrefix(r, "ext:")) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s: package %s may not import third-party %s", f.path, f.pkg, p)
			}
		}
	}
}

// TestNoRealClients: no package but internal/validate (with its proxy)
// and cmd/simulate
// imports a real Kafka client or broker (franz-go, kfake,
// confluent-kafka-go, sarama), tests included: the simulator's packages stay
// free of them whatever their third-party rules allow.
func TestNoRealClients(t *testing.T) {
	for _, f := range parseAll(t) {
		if f.pkg == "internal/validate" || f.pkg == "internal/validate/proxy" || f.pkg == "internal/validate/groupapp" || f.pkg == "cmd/simulate" {
			continue
		}
		for _, im := range f.f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			for _, c := range realClients {
				if p == c || strings.HasPrefix(p, c+"/") {
					t.Errorf("%s: package %s imports %s; only internal/validate may import a real Kafka client", f.path, f.pkg, p)
				}
			}
		}
	}
}

// TestSimnetAlias: every importer of the project's net package names it
// simnet, and nothing imports the standard library's net without the alias
// stdnet.
func TestSimnetAlias(t *testing.T) {
	for _, f := range parseAll(t) {
		for _, im := range f.f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name := ""
			if im.Name != nil {
				name = im.Name.Name
			}
			if p == module+"/net" && name != "simnet" {
				t.Errorf("%s: import %q as simnet, not %q", f.path, p, name)
			}
			if p == "net" && name != "stdnet" {
				t.Errorf("%s: the standard library's net must be imported as stdnet", f.path)
			}
		}
	}
}

// TestDeterminismBans: the simulated world never reads the wall clock, uses
// unseeded or global randomness, starts goroutines, or uses channels and
// locks.
func TestDeterminismBans(t *testing.T) {
	r := root(t)
	fset := token.NewFileSet()
	for _, pkg := range world {
		files, _ := filepath.Glob(filepath.Join(r, pkg, "*.go"))
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]string{} // local name -> import path
			for _, im := range f.Imports {
				ip, _ := strconv.Unquote(im.Path.Value)
				switch ip {
				case "unsafe":
					// The saved states' copier (explore's branches) addresses
					// the memory it copies: reflect.NewAt takes an
					// unsafe.Pointer. It reads no clock and no randomness,
					// and what it copies runs as the source would.
					if pkg == "scenarios/world/internal/snapshot" {
						break
					}
					// The state hash reads a struct's bool, integer and
					// string fields in place, at their offsets, the values
					// reflect would give (TestInPlaceMatchesReflect): reads
					// only, no clock, no randomness.
					if pkg == "scenarios/world/internal/hashwalk" {
						break
					}
					t.Errorf("%s: imports %s, banned in the simulated world", p, ip)
				case "math/rand", "crypto/rand", "sync", "sync/atomic":
					t.Errorf("%s: imports %s, banned in the simulated world", p, ip)
				}
				local := ip[strings.LastIndex(ip, "/")+1:]
				if ip == "math/rand/v2" {
					local = "rand"
				}
				if im.Name != nil {
					local = im.Name.Name
				}
				names[local] = ip
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.GoStmt:
					t.Errorf("%s: go statement in the simulated world", fset.Position(x.Pos()))
				case *ast.ChanType:
					t.Errorf("%s: channel in the simulated world", fset.Position(x.Pos()))
				case *ast.SelectorExpr:
					id, ok := x.X.(*ast.Ident)
					if !ok {
						return true
					}
					switch names[id.Name] {
					case "time":
						switch x.Sel.Name {
						case "Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker":
							t.Errorf("%s: time.%s reads the wall clock", fset.Position(x.Pos()), x.Sel.Name)
						}
					case "math/rand/v2":
						switch x.Sel.Name {
						case "New", "NewPCG", "Rand", "PCG", "Source", "NewChaCha8", "ChaCha8", "NewZipf", "Zipf":
						default:
							t.Errorf("%s: rand.%s uses the global, unseeded source", fset.Position(x.Pos()), x.Sel.Name)
						}
					}
				}
				return true
			})
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
