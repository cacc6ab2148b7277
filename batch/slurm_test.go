package batch

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestParseSqueue(t *testing.T) {
	got, err := ParseSqueue([]byte("0|RUNNING|localhost\n2|PENDING|(JobArrayTaskLimit)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (TaskState{"RUNNING", "localhost"}) || got[2] != (TaskState{"PENDING", "(JobArrayTaskLimit)"}) {
		t.Fatalf("got %v", got)
	}
	if _, err := ParseSqueue([]byte("x|RUNNING|n\n")); !errors.Is(err, ErrScheduler) {
		t.Fatalf("err %v, want ErrScheduler", err)
	}
}

func TestSbatchArgs(t *testing.T) {
	s := &SlurmScheduler{Extra: []string{"--partition=audit"}}
	got := s.SbatchArgs(Job{Dir: "/d/a1", Script: "/d/a1/task.sh", Tasks: 5, Parallel: 2, WorkDir: "/w"})
	want := []string{"--parsable", "--array=0-4%2", "-c", "1", "--mem=" + DefaultSlurmMem, "--job-name=dshaudit-batch",
		"--output=/d/a1/logs/%a.log", "--chdir=/w", "--partition=audit", "/d/a1/task.sh"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestSlurmCheckUnreachable(t *testing.T) {
	s := &SlurmScheduler{Run: func(_ context.Context, name string, args ...string) ([]byte, error) {
		return []byte("Slurmctld(primary) at localhost is DOWN\n"), errors.New("exit status 1")
	}}
	if err := s.Check(context.Background()); !errors.Is(err, ErrScheduler) {
		t.Fatalf("err %v, want ErrScheduler", err)
	}
}
