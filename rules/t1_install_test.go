package rules

import "testing"

func TestDeriveT1(t *testing.T) {
	tests := []struct {
		name    string
		o       Observation
		sub     Subject
		status  StageStatus
		fe      string
		reasons []string
	}{
		{name: "pass", o: withProfile(obs(T1, 0, helloAddOut, ""), helloProfile), status: StagePassed},
		{name: "exit 0 but dependency not written", o: withProfile(obs(T1, 0, helloAddOut, ""), emptyProfile),
			status: StageFailed, fe: SyntheticPrefix + "profile package.json*", reasons: []string{"does not contain"}},
		{name: "plus line with wrong version", o: withProfile(obs(T1, 0, "dependencies:\n+ hello-dsh-plugin 1.0.1\n", ""), helloProfile),
			status: StageFailed, fe: SyntheticPrefix + "added-dependency line names*", reasons: []string{`"1.0.1"`}},
		{name: "no plus line", o: withProfile(obs(T1, 0, "Done\n", ""), helloProfile),
			status: StageFailed, reasons: []string{"no added-dependency line"}},
		{name: "plus line of another package", o: withProfile(obs(T1, 0, "dependencies:\n+ other 1.0.0\n", ""), helloProfile),
			status: StageFailed, reasons: []string{"no added-dependency line"}},
		{name: "plus line with a pnpm suffix", o: withProfile(obs(T1, 0, "dependencies:\n+ hello-dsh-plugin 1.0.0 (2.0.0 is available)\n", ""), helloProfile),
			status: StagePassed},
		// Only pnpm's summary counts, and nothing in it may conflict.
		// SPEC.md "T1 install", "Consumers".
		{name: "plus line outside the summary block", o: withProfile(obs(T1, 0, "+ hello-dsh-plugin 1.0.0\n", ""), helloProfile),
			status: StageFailed, reasons: []string{"not in pnpm's \"dependencies:\" summary block"}},
		{name: "plus line after the block ended", o: withProfile(obs(T1, 0, "dependencies:\n+ other 1.0.0\n\n+ hello-dsh-plugin 1.0.0\n", ""), helloProfile),
			status: StageFailed, reasons: []string{"not in pnpm's"}},
		{name: "plus line only on stderr", o: withProfile(obs(T1, 0, "Done\n", "dependencies:\n+ hello-dsh-plugin 1.0.0\n"), helloProfile),
			status: StageFailed, reasons: []string{"no added-dependency line"}},
		{name: "indented plus line in the block", o: withProfile(obs(T1, 0, "dependencies:\n  + hello-dsh-plugin 1.0.0\n", ""), helloProfile),
			status: StageFailed, reasons: []string{"not in pnpm's"}},
		{name: "subject added twice at two versions", o: withProfile(obs(T1, 0, "dependencies:\n+ hello-dsh-plugin 1.0.0\n+ hello-dsh-plugin 0.9.0\n", ""), helloProfile),
			status: StageFailed, reasons: []string{"names hello-dsh-plugin 2 times (+ 1.0.0, + 0.9.0)", "conflict"}},
		{name: "subject added and removed", o: withProfile(obs(T1, 0, "dependencies:\n- hello-dsh-plugin 1.0.0\n+ hello-dsh-plugin 1.0.0\n", ""), helloProfile),
			status: StageFailed, reasons: []string{"conflict"}},
		{name: "subject removed", o: withProfile(obs(T1, 0, "dependencies:\n- hello-dsh-plugin 1.0.0\n", ""), helloProfile),
			status: StageFailed, reasons: []string{"removes"}},
		{name: "two summary blocks", o: withProfile(obs(T1, 0, "dependencies:\n+ hello-dsh-plugin 1.0.0\n\ndependencies:\n+ other 1.0.0\n", ""), helloProfile),
			status: StageFailed, reasons: []string{"2 \"dependencies:\" summary blocks"}},
		{name: "other packages beside the subject", o: withProfile(obs(T1, 0, "dependencies:\n+ a 1.0.0\n+ hello-dsh-plugin 1.0.0\n- b 2.0.0\n\nDone in 1s\n", ""), helloProfile),
			status: StagePassed},
		{name: "non-zero exit although all else agrees", o: withProfile(obs(T1, 1, helloAddOut, "dsh: pnpm failed\n"), helloProfile),
			status: StageFailed, reasons: []string{"exited with code 1"}},
		{name: "non-zero exit with pnpm error", o: withProfile(obs(T1, 1, "\u2009ERR_PNPM_FETCH_404\u2009 GET https://x: Not Found - 404\n", ""), emptyProfile),
			status: StageFailed, fe: "ERR_PNPM_FETCH_404\u2009 GET https://x: Not Found - 404"},
		{name: "non-zero exit, no output", o: withProfile(obs(T1, 2, "", ""), emptyProfile),
			status: StageFailed, fe: SyntheticPrefix + "exit code 2 with no output"},
		{name: "timeout", o: func() Observation {
			o := withProfile(obs(T1, 0, helloAddOut, ""), helloProfile)
			o.TimedOut = true
			return o
		}(), status: StageFailed, fe: "timeout: T1 did not finish within its time limit"},
		{name: "profile package.json missing", o: obs(T1, 0, helloAddOut, ""),
			status: StageFailed, reasons: []string{"no profile package.json"}},
		{name: "profile package.json not JSON", o: withProfile(obs(T1, 0, helloAddOut, ""), "{"),
			status: StageFailed, reasons: []string{"not a JSON object"}},
		{name: "dependency only in devDependencies", o: withProfile(obs(T1, 0, helloAddOut, ""), `{"devDependencies":{"hello-dsh-plugin":"1.0.0"}}`),
			status: StageFailed, reasons: []string{"does not contain"}},
		{name: "empty subject version", sub: Subject{Name: "hello-dsh-plugin"}, o: withProfile(obs(T1, 0, helloAddOut, ""), helloProfile),
			status: StageFailed, reasons: []string{"is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := tt.sub
			if sub == (Subject{}) {
				sub = helloSub
			}
			r := DeriveT1(sub, tt.o)
			v := Verdict("")
			if tt.status == StageFailed {
				v = InstallFailed
			}
			checkResult(t, r, tt.status, v, tt.fe)
			if r.Stage != T1 {
				t.Errorf("stage %s", r.Stage)
			}
			for _, want := range tt.reasons {
				if !hasReason(r, want) {
					t.Errorf("no reason containing %q in %q", want, r.Reasons)
				}
			}
		})
	}
}

// Every disagreement is reported, not only the first.
func TestDeriveT1AllReasons(t *testing.T) {
	r := DeriveT1(helloSub, withProfile(obs(T1, 1, "", ""), emptyProfile))
	if len(r.Reasons) != 3 {
		t.Errorf("reasons %q, want exit code, added line and package.json", r.Reasons)
	}
}

func withProfile(o Observation, pkg string) Observation {
	o.ProfilePackageJSON = []byte(pkg)
	return o
}
