package owner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// deadChild is an owner that ran on this host in this boot and has ended.
func deadChild(t *testing.T) Owner {
	t.Helper()
	me, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	st, err := startTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	o := Owner{Host: me.Host, Boot: me.Boot, PID: cmd.Process.Pid, Start: st}
	if o.State() != Alive {
		t.Fatalf("running child %v: %v, want alive", o, o.State())
	}
	cmd.Process.Kill()
	cmd.Wait()
	return o
}

func TestState(t *testing.T) {
	me, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	dead := deadChild(t)
	reused := me
	reused.Start++ // this pid, another start time: the pid was reused
	otherBoot := me
	otherBoot.Boot = "00000000-0000-0000-0000-000000000000"
	otherHost := dead
	otherHost.Host = me.Host + "-elsewhere"
	for _, c := range []struct {
		name string
		o    Owner
		want State
	}{
		{"self", me, Alive},
		{"ended child", dead, Dead},
		{"pid reused", reused, Dead},
		{"earlier boot", otherBoot, Dead},
		{"other host", otherHost, Unknown},
	} {
		if got := c.o.State(); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		p, err := Parse(c.o.String())
		if err != nil || p != c.o {
			t.Errorf("%s: Parse(%q) = %v, %v", c.name, c.o.String(), p, err)
		}
	}
	for _, bad := range []string{"", "a/b/c", "h/b/0/1", "h/b/x/1", "h//1/1", "h/b/1/-1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if TokenState(me.Token()) != Alive || TokenState(dead.Token()) != Dead || TokenState(otherBoot.Token()) != Unknown || TokenState("x.1.2") != Unknown {
		t.Errorf("token states: self %v, dead %v, other boot %v", TokenState(me.Token()), TokenState(dead.Token()), TokenState(otherBoot.Token()))
	}
}

func TestSweepDirs(t *testing.T) {
	dir := t.TempDir()
	me, _ := Self()
	dead := deadChild(t)
	otherHost := dead
	otherHost.Host = me.Host + "-elsewhere"
	mine, err := MkdirTemp(dir, "dshaudit-profile-")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk("dshaudit-profile-" + dead.Token() + "-123")
	staleEngine := mk("dshaudit-engine-" + dead.Token() + "-9")
	keep := []string{
		mine,
		mk("dshaudit-profile-123456"), // no token (older dshaudit)
		mk("dshaudit-profile-" + otherHost.Token() + "-1"), // another host's
		mk("unrelated-" + dead.Token() + "-1"),             // not a prefix swept
		mk("dshaudit-profile-" + dead.Token()),             // no random part: not MkdirTemp's
	}
	swept, err := SweepDirs(dir, "dshaudit-profile-", "dshaudit-engine-")
	if err != nil {
		t.Fatal(err)
	}
	if len(swept) != 2 {
		t.Errorf("swept %+v, want the two dead owner's directories", swept)
	}
	for _, p := range []string{stale, staleEngine} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", p, err)
		}
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}
