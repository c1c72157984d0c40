package scenarios

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

// branchAt is saveAt that also keeps the saved point's time and the
// nodes up there, for a node fault to add at it, and the messages sent
// after it whose number on their link was not sent before it, for a
// message rule to add at 0s.
type branchAt struct {
	saveAt
	when  sim.Time
	up    []string
	roles []world.Role
	index int             // the saved point's choice index
	seen  map[string]bool // the messages sent before the point, as a rule names them
	sends []sent
}

// sent is a message as a plan rule names it.
type sent struct {
	key     string // "request|response N CLIENT>SERVER"
	produce bool
}

func (p *branchAt) Choice(cp *world.ChoicePoint) {
	if cp.Kind == world.ChoiceSend {
		k := cp.Dir.String() + " " + strconv.FormatInt(cp.ReqNo, 10) + " " + cp.Client + ">" + cp.Server
		if p.saved != nil && !p.seen[k] {
			p.sends = append(p.sends, sent{k, cp.Produce && cp.Dir == simnet.Request})
		} else if p.saved == nil {
			if p.seen == nil {
				p.seen = map[string]bool{}
			}
			p.seen[k] = true
		}
	}
	if cp.Kind == world.ChoiceTime && p.n == p.at {
		p.when, p.up, p.roles, p.index = cp.At, slices.Clone(cp.Up), slices.Clone(cp.UpRole), cp.Index
	}
	p.saveAt.Choice(cp)
}

// hashesAfter is a probe that keeps the state hashes of the first few
// time choice points after choice point from, with their indexes: a
// branch from a state saved at from reaches them in the state its replay
// does.
type hashesAfter struct {
	from int
	got  []string
}

func (p *hashesAfter) Choice(cp *world.ChoicePoint) {
	if cp.Kind == world.ChoiceTime && cp.Index > p.from && len(p.got) < 3 {
		p.got = append(p.got, fmt.Sprintf("%d:%x", cp.Index, cp.StateHash()))
	}
}

// branchRule returns the plan line of a random message rule at 0s on a
// message sent after the saved point: a drop, a delay, a duplicate, or a
// reject of a produce request; "" when none was sent.
func branchRule(rng *rand.Rand, p *branchAt) string {
	if len(p.sends) == 0 {
		return ""
	}
	m := p.sends[rng.IntN(len(p.sends))]
	k := rng.IntN(4)
	if k == 3 && m.produce {
		n, link, _ := strings.Cut(strings.TrimPrefix(m.key, "request "), " ")
		return "0s reject " + n + " " + link + " NOT_ENOUGH_REPLICAS\n"
	}
	return "0s " + []string{"drop", "delay", "duplicate", "drop"}[k] + " " + m.key + "\n"
}

// atText is a plan time as an explorer writes it.
func atText(t sim.Time) string { return time.Duration(t).String() }

// branchFault returns the plan lines of a random node fault at the saved
// point: a crash (restarted unclean or, for a broker, clean), a pause, a
// stall of a server or a drift, of a random node up; "" when the crash
// would restart after the plan's end.
func branchFault(rng *rand.Rand, p *branchAt, end time.Duration) string {
	i := rng.IntN(len(p.up))
	n, at := p.up[i], atText(p.when)
	d := []time.Duration{time.Second, 10 * time.Second, 27 * time.Second}[rng.IntN(3)]
	switch k := rng.IntN(4); {
	case k == 0:
		if time.Duration(p.when)+d > end {
			return ""
		}
		clean := ""
		if p.roles[i] == world.RoleBroker && rng.IntN(2) == 0 {
			clean = " clean"
		}
		return at + " crash " + n + "\n" + atText(p.when.Add(d)) + " restart " + n + clean + "\n"
	case k == 1 && (p.roles[i] == world.RoleBroker || p.roles[i] == world.RoleCoordinator):
		return at + " stall " + n + " " + d.String() + "\n"
	case k == 2:
		return at + " drift " + n + " " + []string{"+200ppm", "-200ppm"}[rng.IntN(2)] + "\n"
	}
	return at + " pause " + n + " " + d.String() + "\n"
}

// withLines returns plan with lines added, sorted by time as an explorer
// sorts a schedule's lines: the plan's own lines first at equal times.
func withLines(plan, lines string) string {
	body, end, _ := strings.Cut(plan, "end ")
	ls := slices.Concat(strings.SplitAfter(strings.TrimSuffix(body, "\n"), "\n"), strings.SplitAfter(strings.TrimSuffix(lines, "\n"), "\n"))
	ls = slices.DeleteFunc(ls, func(l string) bool { return strings.TrimSpace(l) == "" })
	at := func(l string) time.Duration {
		d, _ := time.ParseDuration(l[:strings.IndexByte(l, ' ')])
		return d
	}
	slices.SortStableFunc(ls, func(a, b string) int { return cmp.Compare(at(a), at(b)) })
	for i := range ls {
		ls[i] = strings.TrimSuffix(ls[i], "\n") + "\n"
	}
	return strings.Join(ls, "") + "end " + end
}

// TestBranchMatchesReplay: a run branched from a saved state with a fault
// added at the saved point ends exactly as the run of the plan with that
// fault from the start: the trace hash, the verdicts, the counters, the
// latencies, the whole JSON report and the plan. For random seeds of
// every catalogue scenario, idempotence on and off, the seed's own plan
// is the parent, a random time choice point of its run the branch point
// and the added fault a random node fault of a node up there or a random
// message rule at 0s (drop, delay, duplicate, reject) on a message sent
// after the point; each saved state branches twice with each kind.
// -long runs thousands.
func TestBranchMatchesReplay(t *testing.T) {
	t.Parallel() // CPU-bound, shares nothing: overlaps the package's other parallel runs
	seeds := 3
	if *long {
		seeds = 60
	}
	rng := rand.New(rand.NewPCG(36, 2))
	ss, hc := world.NewSnapshots(), world.NewHashCache()
	var branches, rules, hashed, refused, settling int
	for _, sc := range All() {
		for seed := range uint64(seeds) {
			for _, on := range []bool{true, false} {
				spec := Spec{Scenario: sc, Seed: seed*7717 + 5, Sets: idem(on)}
				count := &saveAt{t: t, at: -1}
				spec.Probe = count
				ref := mustRun(t, spec)
				if count.n == 0 {
					continue
				}
				spec.PlanText = ref.Plan
				end := planEnd(t, ref.Plan)
				for range 2 {
					p := &branchAt{saveAt: saveAt{t: t, ss: ss, at: rng.IntN(count.n)}}
					spec.Probe = p
					if src := mustRun(t, spec); resultBytes(src) != resultBytes(ref) {
						t.Fatalf("%s seed %d: the plan as text runs otherwise than the seed's", sc.Name, spec.Seed)
					}
					if p.saved == nil {
						settling++
						continue
					}
					for k := range 4 {
						lines := branchFault(rng, p, end)
						if k >= 2 {
							lines = branchRule(rng, p)
						}
						if lines == "" {
							continue
						}
						child := spec
						wantHashes, gotHashes := &hashesAfter{from: p.index}, &hashesAfter{from: p.index}
						child.PlanText, child.Probe = withLines(ref.Plan, lines), wantHashes // a probe, as the branch has (skipIdle)
						want, err := Run(child)
						if err != nil {
							refused++ // the plan's check refuses it
							continue
						}
						sv, err := p.saved.Restore(ss)
						if err != nil {
							t.Fatal(err)
						}
						got, err := sv.Branch(gotHashes, hc, child.PlanText)
						if err != nil {
							t.Fatalf("%s seed %d: branch at time point %d with\n%s: %v", sc.Name, spec.Seed, p.at, lines, err)
						}
						if a, b := resultBytes(got)+got.Plan, resultBytes(want)+want.Plan; a != b {
							t.Fatalf("%s seed %d idempotence=%v: branched at time point %d of %d with\n%sdiffers from the replay of\n%s\nbranched %s\nreplay   %s",
								sc.Name, spec.Seed, on, p.at, count.n, lines, child.PlanText, a, b)
						}
						if !slices.Equal(gotHashes.got, wantHashes.got) {
							t.Fatalf("%s seed %d idempotence=%v: branched at time point %d with\n%sthe state hashes of the next time points differ from the replay's\nbranched %v\nreplay   %v",
								sc.Name, spec.Seed, on, p.at, lines, gotHashes.got, wantHashes.got)
						}
						hashed += len(gotHashes.got)
						branches++
						if k >= 2 {
							rules++
						}
					}
				}
			}
		}
	}
	t.Logf("%d branches identical to their replays, %d of them with a message rule, %d state hashes at their next time points too; %d plans refused by the check, %d points in replication's settling", branches, rules, hashed, refused, settling)
	if branches < 100*seeds || rules < 40*seeds {
		t.Fatalf("only %d branches compared, %d with a message rule", branches, rules)
	}
}

// planEnd returns a plan text's end.
func planEnd(t *testing.T, plan string) time.Duration {
	_, end, ok := strings.Cut(plan, "end ")
	d, err := time.ParseDuration(strings.TrimSpace(end))
	if !ok || err != nil {
		t.Fatalf("plan without an end:\n%s", plan)
	}
	return d
}

// firstAfter is a probe that finds the first time choice point after a
// time, as saveAt counts time points.
type firstAfter struct {
	at   sim.Time
	n    int
	seen bool
}

func (p *firstAfter) Choice(cp *world.ChoicePoint) {
	if cp.Kind != world.ChoiceTime || p.seen {
		return
	}
	if cp.At > p.at {
		p.seen = true
		return
	}
	p.n++
}

// TestBranchRuleOrder: a rule a branch adds at 0s goes before the
// parent's rules armed later in the run, as a replay arms it (a rule
// takes the first message it matches, and the state hash walks the
// unused rules in order): the parent arms at 0.05s a drop that never
// fires, the branch, at a later point, a 0s drop of the run's last
// message; the state hashes of the next time points, the report and the
// trace hash are the replay's. Without the branch's ordering of the
// rules the hashes differ.
func TestBranchRuleOrder(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Scenario: sc, Seed: 1, Sets: []params.KV{{Key: "records", Value: "10"}}, PlanText: "0.05s drop request 900 p1>b1\nend 60s\n"}
	first := &firstAfter{at: sim.Time(60 * time.Millisecond)}
	spec.Probe = first
	mustRun(t, spec)
	ss := world.NewSnapshots()
	p := &branchAt{saveAt: saveAt{t: t, ss: ss, at: first.n}}
	spec.Probe = p
	mustRun(t, spec)
	if p.saved == nil || len(p.sends) == 0 {
		t.Fatalf("no state saved at time point %d, or no message after it", first.n)
	}
	child := spec
	lines := "0s drop " + p.sends[len(p.sends)-1].key + "\n"
	want, got := &hashesAfter{from: p.index}, &hashesAfter{from: p.index}
	child.PlanText, child.Probe = withLines(spec.PlanText, lines), want
	wr := mustRun(t, child)
	gr, err := p.saved.Branch(got, world.NewHashCache(), child.PlanText)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.got) < 3 || !slices.Equal(got.got, want.got) {
		t.Errorf("plan\n%sstate hashes after the point: branched %v, replay %v", child.PlanText, got.got, want.got)
	}
	if a, b := resultBytes(gr)+gr.Plan, resultBytes(wr)+wr.Plan; a != b {
		t.Errorf("plan\n%sbranched %s\nreplay   %s", child.PlanText, a, b)
	}
}
