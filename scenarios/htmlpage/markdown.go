package htmlpage

import (
	"html"
	"regexp"
	"strings"
)

// markdownHTML renders the Markdown the simulator's reports use
// (report.md of a sweep or an exploration) as HTML: headings, paragraphs,
// lists, tables, fenced code blocks, images on a line of their own, and
// inline code, bold, italics and links. It is not a general Markdown
// renderer: it knows the reports' shapes, and anything else is a
// paragraph of escaped text.
func markdownHTML(md string) string {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	var para []string
	flushPara := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			flushPara()
		case strings.HasPrefix(t, "```"):
			flushPara()
			b.WriteString("<pre><code>")
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				b.WriteString(html.EscapeString(lines[i]) + "\n")
			}
			b.WriteString("</code></pre>\n")
		case strings.HasPrefix(t, "#"):
			flushPara()
			n := len(t) - len(strings.TrimLeft(t, "#"))
			if n > 6 || len(t) == n || t[n] != ' ' {
				para = append(para, t)
				continue
			}
			lvl := string(rune('0' + min(n+1, 6))) // the page's h1 is its title
			b.WriteString("<h" + lvl + ">" + inline(strings.TrimSpace(t[n:])) + "</h" + lvl + ">\n")
		case strings.HasPrefix(t, "|"):
			flushPara()
			var rows []string
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				rows = append(rows, strings.TrimSpace(lines[i]))
			}
			i--
			writeTable(&b, rows)
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") && !strings.HasPrefix(t, "**"):
			flushPara()
			b.WriteString("<ul>\n")
			for ; i < len(lines); i++ {
				u := strings.TrimSpace(lines[i])
				if strings.HasPrefix(u, "- ") || strings.HasPrefix(u, "* ") && !strings.HasPrefix(u, "**") {
					b.WriteString("<li>" + inline(u[2:]))
				} else if u != "" && strings.HasPrefix(lines[i], "  ") {
					b.WriteString(" " + inline(u))
					continue
				} else {
					break
				}
				b.WriteString("</li>\n")
			}
			i--
			b.WriteString("</ul>\n")
		case image.MatchString(t):
			flushPara()
			m := image.FindStringSubmatch(t)
			b.WriteString("<figure><img src=\"" + html.EscapeString(m[2]) + "\" alt=\"" + html.EscapeString(m[1]) + "\"></figure>\n")
		default:
			para = append(para, t)
		}
	}
	flushPara()
	return b.String()
}

var image = regexp.MustCompile(`^!\[([^\]]*)\]\(([^)\s]+)\)$`)

// writeTable writes a Markdown table: a header row, a separator row, body
// rows.
func writeTable(b *strings.Builder, rows []string) {
	cells := func(r string) []string {
		r = strings.TrimSuffix(strings.TrimPrefix(r, "|"), "|")
		cs := strings.Split(r, "|")
		for i := range cs {
			cs[i] = strings.TrimSpace(cs[i])
		}
		return cs
	}
	b.WriteString("<table class=\"report\">\n")
	for i, r := range rows {
		if i == 1 && strings.Trim(r, "|-: ") == "" {
			continue
		}
		tag := "td"
		if i == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, c := range cells(r) {
			b.WriteString("<" + tag + ">" + inline(c) + "</" + tag + ">")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
}

var (
	inlineCode = regexp.MustCompile("`([^`]+)`")
	bold       = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	italic     = regexp.MustCompile(`(^|[\s(])\*([^*\s][^*]*)\*`)
	link       = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
)

// inline renders a line's inline Markdown, escaped.
func inline(s string) string {
	// Code spans first, kept apart so nothing inside them is read as
	// Markdown.
	var codes []string
	s = inlineCode.ReplaceAllStringFunc(s, func(m string) string {
		codes = append(codes, m[1:len(m)-1])
		return "\x00" + string(rune('a'+len(codes)-1)) + "\x00"
	})
	s = html.EscapeString(s)
	s = link.ReplaceAllString(s, `<a href="$2">$1</a>`)
	s = bold.ReplaceAllString(s, "<strong>$1</strong>")
	s = italic.ReplaceAllString(s, "$1<em>$2</em>")
	for i, c := range codes {
		s = strings.Replace(s, "\x00"+string(rune('a'+i))+"\x00", "<code>"+html.EscapeString(c)+"</code>", 1)
	}
	return s
}
