package engine

import "sync"

// capture collects two streams separately and merged in arrival order.
// Each Write is one chunk as the engine client delivered it; chunks are
// appended to Merged under one lock, so Merged preserves the order in which
// chunks arrived, not the order of bytes within a single engine read.
type capture struct {
	mu     sync.Mutex
	limit  int
	merged []byte
}

// stream is one side (stdout or stderr) of a capture; it never fails, so
// the engine client never blocks on a full pipe.
type stream struct {
	c         *capture
	buf       []byte
	truncated bool
}

func newCapture(limit int) (*capture, *stream, *stream) {
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	c := &capture{limit: limit}
	return c, &stream{c: c}, &stream{c: c}
}

// Write keeps at most limit bytes of this stream (the head) and appends
// the kept part to the merged record.
func (s *stream) Write(p []byte) (int, error) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	keep := p
	if room := s.c.limit - len(s.buf); room < len(p) {
		keep = p[:max(room, 0)]
		s.truncated = true
	}
	s.buf = append(s.buf, keep...)
	s.c.merged = append(s.c.merged, keep...)
	return len(p), nil
}

// fill copies the captured bytes into r.
func (c *capture) fill(r *Result, out, errs *stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r.Stdout = append([]byte(nil), out.buf...)
	r.Stderr = append([]byte(nil), errs.buf...)
	r.Merged = append([]byte(nil), c.merged...)
	r.StdoutTruncated = out.truncated
	r.StderrTruncated = errs.truncated
}
