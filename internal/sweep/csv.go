package sweep

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/world"
)

// csvSkip are Result fields not written to runs.csv: the parameters are
// the point's (its axis columns), and seed and idempotence are the key
// columns.
var csvSkip = map[string]bool{"params": true, "seed": true, "idempotence": true,
	// A group application's counters (omitted from -json when 0) are not
	// runs.csv columns yet: the header stays pinned.
	"commits_fenced_by_generation": true, "offset_fetch_unstable": true, "offset_fetch_stall_ms": true}

// resultColumn is one runs.csv column taken from a Result field.
type resultColumn struct {
	name  string
	index []int
}

// resultColumns lists the Result's JSON fields as columns, in the order
// and with the names the -json report has them: embedded structs' fields
// in place, nested objects flattened with dotted names (net.dropped).
// TestRunsCSVHeader pins the header: a change to it is deliberate and
// goes into CHANGELOG.md.
func resultColumns() []resultColumn {
	var cols []resultColumn
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if prefix == "" && csvSkip[name] {
				continue
			}
			idx := append(append([]int{}, index...), i)
			if f.Anonymous && f.Tag.Get("json") == "" && f.Type.Kind() == reflect.Struct {
				// An embedded struct's fields are the outer object's, as
				// in the JSON.
				walk(f.Type, prefix, idx)
				continue
			}
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, prefix+name+".", idx)
				continue
			}
			cols = append(cols, resultColumn{name: prefix + name, index: idx})
		}
	}
	walk(reflect.TypeFor[scenarios.Result](), "", nil)
	return cols
}

// cell formats a field: scalars as text, maps and slices as compact JSON.
func cell(v reflect.Value) (string, error) {
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), nil
	}
	b, err := json.Marshal(v.Interface())
	return string(b), err
}

type csvWriter struct {
	w      *bufio.Writer
	rows   csvRows
	header bool
}

// csvRows formats runs.csv's rows. It is read only once made, so the
// sweep's workers format the rows of their runs, each with its own
// scratch buffers, and the writer only writes the lines in order.
type csvRows struct {
	axes []Axis
	cols []resultColumn
	// fast: the Result's columns are appendFastRow's, so rows are
	// formatted without reflection.
	fast bool
}

// newCSVWriter writes runs.csv to w through a buffer, so a row is not a
// write call; rows are encoded as encoding/csv encodes them (csvfield.go).
func newCSVWriter(w io.Writer, axes []Axis) *csvWriter {
	cols := resultColumns()
	return &csvWriter{w: bufio.NewWriter(w), rows: csvRows{axes: axes, cols: cols, fast: fastMatches(cols)}}
}

// csvHeader returns runs.csv's header: the key columns point, seed, mode,
// then the axis keys, then the Result's fields, then the flat columns
// (csvflat.go).
func (c *csvWriter) csvHeader() []string {
	h := []string{"point", "seed", "mode"}
	for _, a := range c.rows.axes {
		h = append(h, a.Key)
	}
	for _, col := range c.rows.cols {
		h = append(h, col.name)
	}
	return append(h, flatColumns...)
}

// write writes a row's line that csvRows.format made.
func (c *csvWriter) write(line []byte) error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	_, err := c.w.Write(line)
	return err
}

// format appends run r's row of point, newline-terminated, to b; scratch
// is a buffer it reuses.
func (c *csvRows) format(b []byte, scratch *[]byte, point int, r *scenarios.Result) ([]byte, error) {
	b = strconv.AppendInt(b, int64(point), 10)
	b = strconv.AppendUint(append(b, ','), r.Seed, 10)
	b = appendCSVField(append(b, ','), modeName(r.Idempotence))
	if len(c.axes) > 0 {
		for _, kv := range PointSets(c.axes, point) {
			b = appendCSVField(append(b, ','), kv.Value)
		}
	}
	if c.fast {
		b, *scratch = appendFastRow(b, *scratch, r)
	} else {
		rv := reflect.ValueOf(r).Elem()
		for _, col := range c.cols {
			s, err := cell(rv.FieldByIndex(col.index))
			if err != nil {
				return b, err
			}
			b = appendCSVField(append(b, ','), s)
		}
	}
	b = appendFlat(b, r)
	return append(b, '\n'), nil
}

// writeHeader writes the header line before the first row.
func (c *csvWriter) writeHeader() error {
	if c.header {
		return nil
	}
	c.header = true
	_, err := c.w.Write(appendCSVRecord(nil, c.csvHeader()))
	return err
}

func (c *csvWriter) flush() error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	return c.w.Flush()
}

// failingWriter writes every failing (run, invariant), tab-separated.
type failingWriter struct {
	w      *bufio.Writer
	header bool
}

func newFailingWriter(w io.Writer) *failingWriter { return &failingWriter{w: bufio.NewWriter(w)} }

func (f *failingWriter) add(point int, r *scenarios.Result) error {
	if !f.header {
		f.header = true
		fmt.Fprintln(f.w, "point\tmode\tinvariant\tseed\treproduce")
	}
	var seen []string
	for _, v := range r.Violations {
		if contains(seen, v.Invariant) {
			continue
		}
		seen = append(seen, v.Invariant)
		if _, err := fmt.Fprintf(f.w, "%d\t%s\t%s\t%d\t%s\n", point, modeName(r.Idempotence), v.Invariant, r.Seed, r.Reproduce); err != nil {
			return err
		}
	}
	return nil
}

func (f *failingWriter) flush() error {
	if !f.header {
		f.header = true
		fmt.Fprintln(f.w, "point\tmode\tinvariant\tseed\treproduce")
	}
	return f.w.Flush()
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// csvKey orders runs.csv rows: point, seed, then mode (off before on).
type csvKey struct {
	point int
	seed  uint64
	mode  string
}

func keyOf(rec []string) (csvKey, error) {
	if len(rec) < 3 {
		return csvKey{}, fmt.Errorf("short row")
	}
	p, err1 := strconv.Atoi(rec[0])
	s, err2 := strconv.ParseUint(rec[1], 10, 64)
	if err1 != nil || err2 != nil || (rec[2] != "off" && rec[2] != "on") {
		return csvKey{}, fmt.Errorf("bad key columns %q", rec[:3])
	}
	return csvKey{p, s, rec[2]}, nil
}

func (a csvKey) cmp(b csvKey) int {
	return cmp.Or(cmp.Compare(a.point, b.point), cmp.Compare(a.seed, b.seed), cmp.Compare(a.mode, b.mode))
}

// mergeCSV merges shards' runs.csv files, each in key order, into one in
// key order, streaming. want[i] is the number of rows paths[i] must have
// (its shard's runs): a file cut short is refused, not merged. checks[i]
// (if any) says what paths[i]'s rows may hold: a row it refuses, or a key
// that repeats or goes back, is refused with the file and line.
func mergeCSV(out io.Writer, paths []string, want []int64, checks []rowCheck) error {
	type src struct {
		r     *csv.Reader
		rec   []string
		key   csvKey
		path  string
		want  int64
		n     int64
		check rowCheck
		seen  bool
	}
	var srcs []*src
	var header []string
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		r := csv.NewReader(bufio.NewReader(f))
		r.ReuseRecord = false
		h, err := r.Read()
		if err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		if header == nil {
			header = h
		} else if strings.Join(h, ",") != strings.Join(header, ",") {
			return fmt.Errorf("%s: header differs from %s's", p, paths[0])
		}
		if err := endsInNewline(f, p); err != nil {
			return err
		}
		s := &src{r: r, path: p, want: want[len(srcs)]}
		if len(checks) > len(srcs) {
			s.check = checks[len(srcs)]
		}
		srcs = append(srcs, s)
	}
	// Every row's trace hash must be of this version's scheme: shards
	// written by an older version are refused, not merged.
	hashCol := slices.Index(header, "trace_hash")
	advance := func(s *src) error {
		rec, err := s.r.Read()
		if err == io.EOF {
			s.rec = nil
			if s.n != s.want {
				return fmt.Errorf("%s has %d rows, but its summary.json counts %d runs: the file is truncated or damaged", s.path, s.n, s.want)
			}
			return nil
		}
		s.n++
		if err != nil {
			return fmt.Errorf("%s: %v", s.path, err)
		}
		k, err := keyOf(rec)
		if err != nil {
			return fmt.Errorf("%s line %d: %v", s.path, s.n+1, err)
		}
		if s.check != nil {
			if err := s.check(header, rec, k); err != nil {
				return fmt.Errorf("%s line %d: %v", s.path, s.n+1, err)
			}
		}
		if s.seen && k.cmp(s.key) <= 0 {
			return fmt.Errorf("%s line %d: key (point %d, seed %d, %s) repeats or comes before the row above (rows are in key order, each key once)", s.path, s.n+1, k.point, k.seed, k.mode)
		}
		s.seen = true
		if hashCol >= 0 && hashCol < len(rec) {
			if _, err := world.ParseTraceHash(rec[hashCol]); err != nil {
				return fmt.Errorf("%s row %d: %v", s.path, s.n, err)
			}
		}
		s.rec, s.key = rec, k
		return nil
	}
	for _, s := range srcs {
		if err := advance(s); err != nil {
			return err
		}
	}
	w := csv.NewWriter(out)
	if header != nil {
		if err := w.Write(header); err != nil {
			return err
		}
	}
	for {
		var best *src
		for _, s := range srcs {
			if s.rec != nil && (best == nil || s.key.cmp(best.key) < 0) {
				best = s
			}
		}
		if best == nil {
			break
		}
		if err := w.Write(best.rec); err != nil {
			return err
		}
		if err := advance(best); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}

// endsInNewline refuses a file whose last byte is not a newline (a file
// cut short), then rewinds it.
func endsInNewline(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], fi.Size()-1); err != nil {
			return err
		}
		if b[0] != '\n' {
			return fmt.Errorf("%s does not end with a newline: the file is truncated", path)
		}
	}
	return nil
}

// mergeFailing merges shards' failing.tsv files, each in (point, seed,
// mode) order, into one in that order, with one header.
func mergeFailing(out io.Writer, paths []string) error {
	type src struct {
		sc   *bufio.Scanner
		line string
		key  csvKey
		ok   bool
		path string
	}
	var srcs []*src
	const header = "point\tmode\tinvariant\tseed\treproduce"
	advance := func(s *src) error {
		if !s.sc.Scan() {
			s.ok = false
			return s.sc.Err()
		}
		s.line = s.sc.Text()
		c := strings.SplitN(s.line, "\t", 5)
		if len(c) != 5 {
			return fmt.Errorf("%s: bad line %q", s.path, s.line)
		}
		k, err := keyOf([]string{c[0], c[3], c[1]})
		if err != nil {
			return fmt.Errorf("%s: %v", s.path, err)
		}
		s.key, s.ok = k, true
		return nil
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := endsInNewline(f, p); err != nil {
			return err
		}
		s := &src{sc: bufio.NewScanner(f), path: p}
		s.sc.Buffer(nil, 1<<20)
		if !s.sc.Scan() || s.sc.Text() != header {
			return fmt.Errorf("%s: not a failing list (want the header %q)", p, header)
		}
		if err := advance(s); err != nil {
			return err
		}
		srcs = append(srcs, s)
	}
	w := bufio.NewWriter(out)
	fmt.Fprintln(w, header)
	for {
		var best *src
		for _, s := range srcs {
			if s.ok && (best == nil || s.key.cmp(best.key) < 0) {
				best = s
			}
		}
		if best == nil {
			break
		}
		fmt.Fprintln(w, best.line)
		if err := advance(best); err != nil {
			return err
		}
	}
	return w.Flush()
}

// rowCheck says whether a runs.csv row (with its key k) may stand in a
// shard's file.
type rowCheck func(header, rec []string, k csvKey) error

// countColumns are runs.csv's columns that hold counts (the others hold
// text, or a -vary axis's values).
var countColumns = map[string]bool{"events": true, "sim_time_ns": true, "sent": true, "acked": true, "failed": true, "pending": true,
	"appended": true, "duplicates": true, "reordered": true, "lost_acked": true, "aborted": true, "txn_committed": true,
	"txn_aborted": true, "abandoned": true, "fenced": true, "zombie_writes": true, "zombie_attempts": true, "zombie_rejected": true,
	"client_epoch_bumps": true, "coordinator_epoch_bumps": true, "net.requests_sent": true, "net.responses_sent": true,
	"net.requests_lost": true, "net.responses_lost": true, "net.dropped": true, "net.server_sent": true, "net.server_dropped": true,
	"violations_count": true, "errors_total": true, "faults": true}

// msColumns are runs.csv's columns that hold a time in ms (appendMs), or
// nothing: a fault the plan does not have, a run without a violation.
var msColumns = func() map[string]bool {
	m := map[string]bool{"first_violation_at_ms": true}
	for i := 1; i <= planColumns; i++ {
		m["fault"+strconv.Itoa(i)+"_at_ms"] = true
	}
	return m
}()

// newRowCheck returns the checks of a shard's rows from its summary: the
// point is one of the sweep's, the seed is the shard's (every n-th seed
// from the base, starting at the shard's index), the mode is one the sweep
// ran, and every count is a non-negative integer.
func newRowCheck(st *State) rowCheck {
	points := len(st.Acc)
	modes := map[string]bool{}
	for _, on := range st.Modes {
		modes[modeName(on)] = true
	}
	if len(st.Modes) == 0 {
		modes["off"], modes["on"] = true, true
	}
	idx, count := 0, 1
	if st.Shard != nil && st.Shard.Count > 1 {
		idx, count = st.Shard.Index, st.Shard.Count
	}
	return func(header, rec []string, k csvKey) error {
		if k.point < 0 || k.point >= points {
			return fmt.Errorf("point %d is out of range (the sweep has points 0 to %d)", k.point, points-1)
		}
		if k.seed < st.Base || k.seed >= st.Base+uint64(st.Runs) || int((k.seed-st.Base)%uint64(count)) != idx {
			return fmt.Errorf("seed %d is not in shard %d/%d of seeds %d..%d", k.seed, idx, count, st.Base, st.Base+uint64(st.Runs)-1)
		}
		if !modes[k.mode] {
			return fmt.Errorf("mode %q was not run", k.mode)
		}
		if len(rec) != len(header) {
			return fmt.Errorf("%d fields, the header has %d", len(rec), len(header))
		}
		for i, name := range header {
			switch {
			case countColumns[name]:
				if _, err := strconv.ParseUint(rec[i], 10, 64); err != nil {
					return fmt.Errorf("%s %q is not a non-negative integer", name, rec[i])
				}
			case msColumns[name] && rec[i] != "":
				if !isMs(rec[i]) {
					return fmt.Errorf("%s %q is not a time in ms (digits, optionally a point and up to 6 more) or empty", name, rec[i])
				}
			}
		}
		return nil
	}
}

// isMs reports whether s is a time as appendMs writes it: digits, then
// optionally a point and 1 to 6 digits.
func isMs(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	digits := func(t string) bool {
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return false
			}
		}
		return t != ""
	}
	return digits(whole) && (!dot || (digits(frac) && len(frac) <= 6))
}
