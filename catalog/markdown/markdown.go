package markdown

import (
	"strings"
)

// textEscaper turns HTML's three specials into entities (so no tag or
// comment opens) and backslash-escapes the Markdown punctuation that could
// start emphasis, a link, an image, code, a table cell or strikethrough.
var textEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"|", `\|`, "~", `\~`, "!", `\!`, "#", `\#`,
)

// Text returns s as inline Markdown text on one line: every run of white
// space (newlines and Unicode line separators included) becomes one space,
// and HTML and Markdown syntax is escaped.
func Text(s string) string {
	return textEscaper.Replace(oneLine(s))
}

// Code returns s as an inline code span on one line. A backtick in s
// becomes ' (a code span cannot hold its own fence portably), and a pipe
// is escaped, which GitHub requires inside table cells.
func Code(s string) string {
	s = strings.ReplaceAll(oneLine(s), "`", "'")
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
