// Package owner names the process that made a container or a temporary
// directory, so that what a killed dshaudit left behind can be told from
// what a live one is using (DESIGN.md "Leftovers of a killed run"). A
// process is named by its host, the host's boot id, its pid and its start
// time since boot: a pid alone is reused, and a start time alone repeats
// after a reboot.
package owner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Label is the container label (engine) that carries an Owner's String.
const Label = "dshaudit.owner"

// ErrMalformed: a label or name does not hold an owner.
var ErrMalformed = errors.New("malformed owner")

// Owner is one process on one host in one boot.
type Owner struct {
	Host  string // os.Hostname
	Boot  string // /proc/sys/kernel/random/boot_id
	PID   int
	Start uint64 // start time in clock ticks since boot (/proc/PID/stat field 22)
}

// State is what can be said about an owner from this process.
type State int

// The states of an owner.
const (
	// Unknown: another host, or (for a Token) another host or boot;
	// nothing of it may be touched.
	Unknown State = iota
	// Alive: the owner is running.
	Alive
	// Dead: the owner is certainly not running: same host, and another
	// boot, or no process with its pid and start time.
	Dead
)

func (s State) String() string {
	switch s {
	case Alive:
		return "alive"
	case Dead:
		return "dead"
	}
	return "unknown"
}

var (
	selfOnce sync.Once
	self     Owner
	selfErr  error
)

// Self is the calling process.
func Self() (Owner, error) {
	selfOnce.Do(func() { self, selfErr = current() })
	return self, selfErr
}

func current() (Owner, error) {
	host, err := os.Hostname()
	if err != nil {
		return Owner{}, fmt.Errorf("owner: host name: %w", err)
	}
	boot, err := bootID()
	if err != nil {
		return Owner{}, err
	}
	pid := os.Getpid()
	start, err := startTime(pid)
	if err != nil {
		return Owner{}, fmt.Errorf("owner: own start time: %w", err)
	}
	return Owner{Host: host, Boot: boot, PID: pid, Start: start}, nil
}

func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", fmt.Errorf("owner: boot id: %w", err)
	}
	id := strings.TrimSpace(string(b))
	if id == "" || strings.ContainsAny(id, "/ \t\n") {
		return "", fmt.Errorf("owner: boot id %q: %w", id, ErrMalformed)
	}
	return id, nil
}

// startTime reads field 22 of /proc/PID/stat, the start time in clock
// ticks since boot. The command name (field 2) may hold spaces and
// parentheses, so the fields are counted after its last ")".
func startTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, ErrMalformed)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, ErrMalformed)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// String is the label value: HOST/BOOT/PID/START.
func (o Owner) String() string {
	return fmt.Sprintf("%s/%s/%d/%d", o.Host, o.Boot, o.PID, o.Start)
}

// Parse reads a label value written by String.
func Parse(s string) (Owner, error) {
	p := strings.Split(s, "/")
	if len(p) != 4 || p[0] == "" || p[1] == "" {
		return Owner{}, fmt.Errorf("owner %q: %w", s, ErrMalformed)
	}
	pid, err := strconv.Atoi(p[2])
	if err != nil || pid <= 0 {
		return Owner{}, fmt.Errorf("owner %q: %w", s, ErrMalformed)
	}
	start, err := strconv.ParseUint(p[3], 10, 64)
	if err != nil {
		return Owner{}, fmt.Errorf("owner %q: %w", s, ErrMalformed)
	}
	return Owner{Host: p[0], Boot: p[1], PID: pid, Start: start}, nil
}

// State says whether o is alive, as seen from this process.
func (o Owner) State() State {
	me, err := Self()
	if err != nil || o.Host != me.Host {
		return Unknown
	}
	if o.Boot != me.Boot {
		return Dead // every process of an earlier boot has ended
	}
	return processState(o.PID, o.Start)
}

func processState(pid int, start uint64) State {
	st, err := startTime(pid)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Dead
	case err != nil:
		return Unknown
	case st != start:
		return Dead // the pid was reused
	}
	return Alive
}

// Token is the owner as part of a file name: 12 hex digits naming host
// and boot, the pid and the start time, "HHHHHHHHHHHH.PID.START".
func (o Owner) Token() string {
	return hostBoot(o.Host, o.Boot) + "." + strconv.Itoa(o.PID) + "." + strconv.FormatUint(o.Start, 10)
}

func hostBoot(host, boot string) string {
	h := sha256.Sum256([]byte(host + "\n" + boot))
	return hex.EncodeToString(h[:6])
}

// TokenState says whether the owner named by a Token is alive. A token
// of another host or another boot is Unknown: a name cannot tell the two
// apart, and a directory shared between hosts must not lose what another
// host is using.
func TokenState(tok string) State {
	p := strings.Split(tok, ".")
	if len(p) != 3 || len(p[0]) != 12 {
		return Unknown
	}
	me, err := Self()
	if err != nil || p[0] != hostBoot(me.Host, me.Boot) {
		return Unknown
	}
	pid, err := strconv.Atoi(p[1])
	if err != nil || pid <= 0 {
		return Unknown
	}
	start, err := strconv.ParseUint(p[2], 10, 64)
	if err != nil {
		return Unknown
	}
	return processState(pid, start)
}
