package assemble

import (
	"testing"
	"time"
	"unsafe"
)

// wallShift returns t with its wall time moved by d and its monotonic
// reading kept, as a wall-clock step between two readings leaves them. No
// API of package time does that, so it writes the monotonic reading
// (time.Time's second word, ext, when the hasMonotonic bit is set) back.
func wallShift(t time.Time, d time.Duration) time.Time {
	out := t.Add(d) // both clocks +d
	type timeLayout struct {
		wall uint64
		ext  int64
		loc  *time.Location
	}
	(*timeLayout)(unsafe.Pointer(&out)).ext -= int64(d) // monotonic back by d
	return out
}

// TestWallDurationIgnoresMonotonic: duration_ms must agree with the
// recorded wall times even when the monotonic clock says otherwise (a wall
// clock stepped during a stage). A time from time.Now carries a monotonic
// reading; Add moves both, so the monotonic gap stays 2 s here while the
// wall gap, read from times stripped of it, is 2.012 s.
func TestWallDurationIgnoresMonotonic(t *testing.T) {
	start := time.Now()
	end := start.Add(2 * time.Second) // monotonic and wall: +2 s
	if got := end.Sub(start).Milliseconds(); got != 2000 {
		t.Fatalf("setup: %d", got)
	}
	// The wall clock was stepped 12 ms forward during the stage: the
	// recorded end is 12 ms later on the wall, the monotonic reading is not.
	stepped := wallShift(end, 12*time.Millisecond)
	if got := stepped.Sub(start).Milliseconds(); got != 2000 {
		t.Fatalf("setup: Sub on the monotonic readings gave %d, want 2000", got)
	}
	if got, want := wallDurationMS(start, stepped), int64(2012); got != want {
		t.Fatalf("wallDurationMS = %d, want %d (the wall times' difference)", got, want)
	}
	s, e := rfc3339(start), rfc3339(stepped)
	ps, _ := time.Parse(time.RFC3339Nano, s)
	pe, _ := time.Parse(time.RFC3339Nano, e)
	if got := pe.Sub(ps).Milliseconds(); got != wallDurationMS(start, stepped) {
		t.Fatalf("recorded times differ by %d ms, duration_ms %d", got, wallDurationMS(start, stepped))
	}
}
