package historycheck

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A history line is parsed by a small JSON reader of its own, which is
// several times faster than encoding/json on the long final polls and
// knows the one number type a history holds: integers.

// jvalue is a parsed JSON value: nil (null), int64, string, []jvalue or
// jobject (true and false are parsed as bool).
type jvalue = any

// jobject is a JSON object, its members in order (a history's objects are
// small: a slice is cheaper than a map).
type jobject []jmember

type jmember struct {
	key string
	val jvalue
}

// get returns the member named key.
func (o jobject) get(key string) (jvalue, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

type jparser struct {
	b []byte
	i int
}

func parseJSON(b []byte) (jvalue, error) {
	p := &jparser{b: b}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, p.errorf("trailing data")
	}
	return v, nil
}

func (p *jparser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jparser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *jparser) value() (jvalue, error) {
	p.space()
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '[':
		p.i++
		var out []jvalue
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return []jvalue{}, nil
		}
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			p.space()
			if p.i >= len(p.b) {
				return nil, p.errorf("unterminated array")
			}
			if p.b[p.i] == ']' {
				p.i++
				return out, nil
			}
			if p.b[p.i] != ',' {
				return nil, p.errorf("want , or ] in an array")
			}
			p.i++
		}
	case c == '{':
		p.i++
		out := jobject{}
		p.space()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return out, nil
		}
		for {
			p.space()
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, p.errorf("want : after an object key")
			}
			p.i++
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			out = append(out, jmember{k, v})
			p.space()
			if p.i >= len(p.b) {
				return nil, p.errorf("unterminated object")
			}
			if p.b[p.i] == '}' {
				p.i++
				return out, nil
			}
			if p.b[p.i] != ',' {
				return nil, p.errorf("want , or } in an object")
			}
			p.i++
		}
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		// A JSON number; a history holds only integers.
		j := p.i
		p.i++
		for p.i < len(p.b) && strings.IndexByte("0123456789.eE+-", p.b[p.i]) >= 0 {
			p.i++
		}
		n, err := strconv.ParseInt(string(p.b[j:p.i]), 10, 64)
		if err != nil {
			return nil, p.errorf("number %q: want an integer", p.b[j:p.i])
		}
		return n, nil
	default:
		for _, lit := range []struct {
			s string
			v jvalue
		}{{"null", nil}, {"true", true}, {"false", false}} {
			if len(p.b)-p.i >= len(lit.s) && string(p.b[p.i:p.i+len(lit.s)]) == lit.s {
				p.i += len(lit.s)
				return lit.v, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *jparser) str() (string, error) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", p.errorf("want a string")
	}
	j := p.i
	p.i++
	escaped := false
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case '\\':
			escaped = true
			p.i += 2
			continue
		case '"':
			p.i++
			if !escaped {
				return string(p.b[j+1 : p.i-1]), nil
			}
			s, err := strconv.Unquote(string(p.b[j:p.i]))
			if err != nil {
				return "", errors.New("bad string escape")
			}
			return s, nil
		}
		p.i++
	}
	return "", p.errorf("unterminated string")
}
