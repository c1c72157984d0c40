package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// runAdaptive runs a sweep whose first axis is FROM:TO:autoN. It runs
// the coarse grid the axis was parsed with, then, one point at a time,
// splits the pair of neighbouring points whose values of the metric
// (c.Crossing, else violations) differ most among the pairs whose 95%
// intervals do not overlap, in any mode (and value of a second axis),
// until the axis has N points or no such pair is left. Every choice is a
// function of the state so far, so the result is as deterministic as a
// fixed grid's; runs.csv and the failing list come out in the order of
// the final, sorted grid.
func runAdaptive(ctx context.Context, c Config) (*State, error) {
	ax := c.Axes[0]
	metric := c.Crossing
	if metric == "" {
		metric = "violations"
	}
	inner := 1
	if len(c.Axes) == 2 {
		inner = len(c.Axes[1].Values)
	}
	type part struct {
		values    []string
		csv, fail bytes.Buffer
	}
	var parts []*part
	total := int64(ax.Auto) * int64(inner) * int64(c.seeds()) * int64(len(c.modes()))
	var done int64
	sub := func(values []string) (*State, error) {
		pt := &part{values: values}
		parts = append(parts, pt)
		cc := c
		a0 := ax
		a0.Values = values
		cc.Axes = append([]Axis{a0}, c.Axes[1:]...)
		if c.CSV != nil {
			cc.CSV = &pt.csv
		}
		if c.KeepFailing != nil {
			cc.KeepFailing = &pt.fail
		}
		base := done
		if c.Progress != nil {
			cc.Progress = func(d, _ int64) { c.Progress(base+d, total) }
		}
		st, err := runGrid(ctx, cc)
		if st != nil {
			for _, accs := range st.Acc {
				for _, a := range accs {
					done += a.Runs
				}
			}
		}
		return st, err
	}
	st, err := sub(ax.Values)
	if err != nil {
		return nil, err
	}
	st.Axes = slices.Clone(c.Axes)
	st.Axes[0].Added = []string{}
	kind := ax.kind()
	sortGrid(st, inner)
	unsplittable := map[string]bool{}
	for st.Complete && len(st.Axes[0].Values) < ax.Auto {
		vals := st.Axes[0].Values
		i := widestGap(st.Summarize(), metric, unsplittable)
		if i < 0 {
			st.Axes[0].Stopped = fmt.Sprintf("stopped at %d points: no neighbouring points left whose intervals do not overlap", len(vals))
			break
		}
		a, b := parseValue(ax.Kind, vals[i]), parseValue(ax.Kind, vals[i+1])
		mid := formatValue(kind, (a+b)/2, (b-a)/2)
		if slices.Contains(vals, mid) {
			unsplittable[vals[i]+" "+vals[i+1]] = true
			continue
		}
		ps, err := sub([]string{mid})
		if err != nil {
			return nil, err
		}
		st.Axes[0].Values = append(st.Axes[0].Values, mid)
		st.Axes[0].Added = append(st.Axes[0].Added, mid)
		st.Acc = append(st.Acc, ps.Acc...)
		st.Complete = ps.Complete
		sortGrid(st, inner)
	}
	if c.CSV != nil {
		if err := joinCSV(c.CSV, st.Axes[0].Values, inner, parts, func(p *part) ([]string, *bytes.Buffer) { return p.values, &p.csv }); err != nil {
			return nil, err
		}
	}
	if c.KeepFailing != nil {
		if err := joinTSV(c.KeepFailing, st.Axes[0].Values, inner, parts, func(p *part) ([]string, *bytes.Buffer) { return p.values, &p.fail }); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// sortGrid sorts the first axis's values numerically, with their points.
func sortGrid(st *State, inner int) {
	ax := &st.Axes[0]
	idx := make([]int, len(ax.Values))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := parseValue(ax.Kind, ax.Values[a]), parseValue(ax.Kind, ax.Values[b])
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	vals := make([]string, len(idx))
	acc := make([][]*Acc, 0, len(st.Acc))
	for k, i := range idx {
		vals[k] = ax.Values[i]
		acc = append(acc, st.Acc[i*inner:(i+1)*inner]...)
	}
	ax.Values, st.Acc = vals, acc
}

// widestGap returns the index i of the neighbouring points (i, i+1)
// whose metric differs most, in any series, among pairs whose intervals
// do not overlap and that are not known to be unsplittable; -1 if none.
// Ties go to the smaller i.
func widestGap(s *Summary, metric string, unsplittable map[string]bool) int {
	best, bestDiff := -1, 0.0
	vals := s.Axes[0].Values
	for _, ser := range s.series("", func(st *Stats) (v, lo, hi *float64) {
		a, b, d, ok := metricOf(st, metric)
		if !ok {
			return nil, nil, nil
		}
		return &a, &b, &d
	}) {
		for i := 0; i+1 < len(ser.Y); i++ {
			if unsplittable[vals[i]+" "+vals[i+1]] || !finite(ser.Y[i]) || !finite(ser.Y[i+1]) {
				continue
			}
			if ser.Hi[i] >= ser.Lo[i+1] && ser.Hi[i+1] >= ser.Lo[i] {
				continue // the intervals overlap
			}
			d := ser.Y[i+1] - ser.Y[i]
			if d < 0 {
				d = -d
			}
			if d > bestDiff || d == bestDiff && best >= 0 && i < best {
				best, bestDiff = i, d
			}
		}
	}
	return best
}

// finalPoint maps a part's local point index to the final grid's.
func finalPoint(final, local []string, inner, p int) (int, error) {
	if p/inner >= len(local) {
		return 0, fmt.Errorf("point %d out of range", p)
	}
	i := slices.Index(final, local[p/inner])
	if i < 0 {
		return 0, fmt.Errorf("value %s not on the grid", local[p/inner])
	}
	return i*inner + p%inner, nil
}

// joinCSV writes the parts' runs.csv rows as one file in final point
// order, with the point column renumbered.
func joinCSV[P any](w io.Writer, final []string, inner int, parts []P, get func(P) ([]string, *bytes.Buffer)) error {
	var header []string
	var rows [][]string
	var keys []int
	for _, pt := range parts {
		local, buf := get(pt)
		recs, err := csv.NewReader(buf).ReadAll()
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			continue
		}
		header = recs[0]
		for _, r := range recs[1:] {
			p, err := strconv.Atoi(r[0])
			if err != nil {
				return err
			}
			if p, err = finalPoint(final, local, inner, p); err != nil {
				return err
			}
			r[0] = strconv.Itoa(p)
			rows, keys = append(rows, r), append(keys, p)
		}
	}
	cw := csv.NewWriter(w)
	if header != nil {
		if err := cw.Write(header); err != nil {
			return err
		}
	}
	for _, i := range order(keys) {
		if err := cw.Write(rows[i]); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// joinTSV does for the failing list what joinCSV does for runs.csv.
func joinTSV[P any](w io.Writer, final []string, inner int, parts []P, get func(P) ([]string, *bytes.Buffer)) error {
	var header string
	var rows []string
	var keys []int
	for _, pt := range parts {
		local, buf := get(pt)
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		header = lines[0]
		for _, l := range lines[1:] {
			a, rest, _ := strings.Cut(l, "\t")
			p, err := strconv.Atoi(a)
			if err != nil {
				return err
			}
			if p, err = finalPoint(final, local, inner, p); err != nil {
				return err
			}
			rows, keys = append(rows, strconv.Itoa(p)+"\t"+rest), append(keys, p)
		}
	}
	var b strings.Builder
	if header != "" {
		b.WriteString(header + "\n")
	}
	for _, i := range order(keys) {
		b.WriteString(rows[i] + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// order returns the indices of keys, stably sorted by key.
func order(keys []int) []int {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return keys[a] - keys[b] })
	return idx
}
