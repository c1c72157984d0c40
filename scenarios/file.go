package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/idemsim/idemsim/scenarios/params"
	"go.yaml.in/yaml/v3"
)

// FileScenario is a user's scenario read from a YAML file: a catalogue
// scenario to start from, parameter overrides, and an optional fault plan.
//
//	# my.yaml
//	format: 1                 # the file format; optional, 1 when missing
//	name: slow-acks           # required: letters, digits, '-', '_'
//	base: ackloss             # required: a catalogue scenario
//	summary: acks lost on a slow link
//	params:                   # any -set key (see simulate -describe BASE)
//	  net.response_loss: 0.1
//	  net.latency.base: 20ms
//	  records: 50
//	plan: |                   # optional fault plan, in the plan format
//	  3s pause p1 2s
type FileScenario struct {
	// Scenario is the base scenario renamed and re-summarised.
	Scenario *Scenario
	// Sets are the file's parameter values, in file order.
	Sets []params.KV
	// Plan is the plan text ("" for none) and PlanLine the file line its
	// first line is on, so plan errors can name file lines.
	Plan     string
	PlanLine int
}

// fileKeys are the allowed top-level keys.
var fileKeys = []string{"format", "name", "base", "summary", "params", "plan"}

// FileFormat is the scenario file format this version reads: a file's
// "format" key, 1 when the key is missing; any other value is refused.
const FileFormat = "1"

// ParseScenarioFile parses a scenario file. Errors start with
// "file:line: " and say what is allowed.
func ParseScenarioFile(file string, data []byte) (*FileScenario, error) {
	errAt := func(line int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, a...))
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&doc)
	if err == io.EOF {
		err = nil // an empty file: reported below
	}
	if err == nil {
		// One document only: a second one would be silently ignored.
		var next yaml.Node
		switch err2 := dec.Decode(&next); {
		case err2 == nil:
			line := next.Line
			if len(next.Content) > 0 {
				line = next.Content[0].Line
			}
			return nil, errAt(line, "a second YAML document (allowed: one; remove the \"---\" and what follows, or put it in its own file)")
		case err2 != io.EOF:
			err = err2
		}
	}
	if err != nil {
		msg := err.Error()
		line := 1
		// yaml.v3 reports "yaml: line N: ..."
		if _, err2 := fmt.Sscanf(strings.TrimPrefix(msg, "yaml: "), "line %d:", &line); err2 == nil {
			msg = msg[strings.Index(msg, ":")+1:]
			msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		}
		return nil, errAt(line, "not valid YAML: %s", msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, errAt(1, "empty scenario file (want keys: %s)", strings.Join(fileKeys, ", "))
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errAt(root.Line, "the file must be a mapping of keys (%s)", strings.Join(fileKeys, ", "))
	}
	fs := &FileScenario{}
	var name, base, summary string
	seen := map[string]int{}
	var paramsNode *yaml.Node
	var baseLine int
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if prev, dup := seen[k.Value]; dup {
			return nil, errAt(k.Line, "key %q repeats line %d", k.Value, prev)
		}
		seen[k.Value] = k.Line
		scalar := func() (string, error) {
			if v.Kind != yaml.ScalarNode {
				return "", errAt(v.Line, "%s must be a single value", k.Value)
			}
			return v.Value, nil
		}
		var err error
		switch k.Value {
		case "format":
			var f string
			f, err = scalar()
			if err == nil && f != FileFormat {
				err = errAt(v.Line, "unknown scenario file format %q: this simulator reads format %s (format: %s)", f, FileFormat, FileFormat)
			}
		case "name":
			name, err = scalar()
			if err == nil && !validName(name) {
				err = errAt(v.Line, "name %q is not allowed (letters, digits, '-' and '_', 1..40 characters)", name)
			}
		case "base":
			base, err = scalar()
			baseLine = v.Line
		case "summary":
			summary, err = scalar()
		case "params":
			if v.Kind != yaml.MappingNode {
				err = errAt(v.Line, "params must be a mapping of parameter: value")
			}
			paramsNode = v
		case "plan":
			fs.Plan, err = scalar()
			fs.PlanLine = v.Line
			if v.Style == yaml.LiteralStyle || v.Style == yaml.FoldedStyle {
				fs.PlanLine++ // the text starts on the line after "plan: |"
			}
		default:
			err = errAt(k.Line, "unknown key %q%s (allowed: %s)", k.Value, params.DidYouMean(k.Value, fileKeys), strings.Join(fileKeys, ", "))
		}
		if err != nil {
			return nil, err
		}
	}
	if name == "" {
		return nil, errAt(root.Line, "missing key \"name\"")
	}
	if base == "" {
		return nil, errAt(root.Line, "missing key \"base\" (a catalogue scenario: %s)", strings.Join(Names(), ", "))
	}
	sc, err := Lookup(base)
	if err != nil {
		return nil, errAt(baseLine, "base: %v", err)
	}
	c := *sc
	c.Name = name
	if summary != "" {
		c.Summary = summary
	}
	fs.Scenario = &c
	if paramsNode != nil {
		vals := c.Values()
		seenParam := map[string]int{}
		for i := 0; i+1 < len(paramsNode.Content); i += 2 {
			k, v := paramsNode.Content[i], paramsNode.Content[i+1]
			if prev, dup := seenParam[k.Value]; dup {
				return nil, errAt(k.Line, "params: key %q repeats line %d", k.Value, prev)
			}
			seenParam[k.Value] = k.Line
			if v.Kind != yaml.ScalarNode {
				return nil, errAt(v.Line, "%s must be a single value", k.Value)
			}
			if err := vals.Set(k.Value, v.Value); err != nil {
				return nil, errAt(k.Line, "%v", err)
			}
			fs.Sets = append(fs.Sets, params.KV{Key: k.Value, Value: v.Value})
		}
	}
	return fs, nil
}

func validName(s string) bool {
	if len(s) == 0 || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
