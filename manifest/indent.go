package manifest

import "io"

// indentChunk is how many indented bytes indentWriter gathers before it
// writes them on.
const indentChunk = 4 << 10

// indentWriter indents the compact JSON that a json.Encoder without
// SetIndent writes to it exactly as SetIndent("", "  ") would
// (json.Indent: a newline and two spaces per level after each opening
// bracket and comma, ": " after a colon, [] and {} left empty), and
// writes the result on to w in chunks as it goes. The Encoder's own
// indentation builds the whole indented document (8 MiB for a manifest
// of MaxSize) beside its compact form before writing it; this way only
// the compact form is held, whatever w does with the bytes
// (TestIndentWriterAsEncoder, FuzzIndentWriter).
//
// Its input is the Encoder's: compact JSON, one value and a newline per
// Encode, nothing to indent inside a string. A value ends where it
// began (depth 0, outside a string), so one indentWriter serves any
// number of Encodes.
type indentWriter struct {
	w   io.Writer
	out []byte
	// depth is the nesting of the last bracket opened; open is set
	// after an opening bracket until the next byte, which indents
	// unless it closes the bracket at once.
	depth         int
	open          bool
	inString, esc bool
}

func (iw *indentWriter) Write(p []byte) (int, error) {
	if iw.out == nil {
		iw.out = make([]byte, 0, indentChunk+64)
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if iw.inString {
			switch {
			case iw.esc:
				iw.esc = false
			case c == '\\':
				iw.esc = true
			case c == '"':
				iw.inString = false
			default:
				// The run of bytes up to the next quote or backslash is
				// copied whole.
				j := i + 1
				for j < len(p) && j-i < indentChunk && p[j] != '"' && p[j] != '\\' {
					j++
				}
				iw.out = append(iw.out, p[i:j]...)
				i = j - 1
				if len(iw.out) >= indentChunk {
					if err := iw.flush(); err != nil {
						return 0, err
					}
				}
				continue
			}
			iw.out = append(iw.out, c)
		} else {
			if iw.open && c != '}' && c != ']' {
				iw.open = false
				iw.depth++
				iw.newline()
			}
			switch c {
			case '"':
				iw.inString = true
				iw.out = append(iw.out, c)
			case '{', '[':
				iw.open = true
				iw.out = append(iw.out, c)
			case ',':
				iw.out = append(iw.out, c)
				iw.newline()
			case ':':
				iw.out = append(iw.out, c, ' ')
			case '}', ']':
				if iw.open {
					iw.open = false
				} else {
					iw.depth--
					iw.newline()
				}
				iw.out = append(iw.out, c)
			default:
				iw.out = append(iw.out, c)
			}
		}
		if len(iw.out) >= indentChunk {
			if err := iw.flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := iw.flush(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// newline starts a line indented to depth.
func (iw *indentWriter) newline() {
	iw.out = append(iw.out, '\n')
	for range iw.depth {
		iw.out = append(iw.out, ' ', ' ')
	}
}

func (iw *indentWriter) flush() error {
	if len(iw.out) == 0 {
		return nil
	}
	_, err := iw.w.Write(iw.out)
	iw.out = iw.out[:0]
	return err
}
