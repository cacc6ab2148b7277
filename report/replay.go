package report

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ReplayMediaType is the media type of `dshaudit replay --json`.
const ReplayMediaType = "application/vnd.dshaudit.replay-result.v1+json"

// maxReplaySize bounds a --replay file.
const maxReplaySize = 16 << 20

// replayResult is the part of `dshaudit replay --json` a page shows. It is
// declared here, not imported, because package replay pulls in the
// runner and the engine and a report is made offline.
type replayResult struct {
	MediaType      string `json:"media_type"`
	Outcome        string `json:"outcome"`
	Original       string `json:"original"`
	OriginalSHA256 string `json:"original_sha256"`
	Verified       bool   `json:"original_verified"`
	Why            string `json:"why"`
	Written        *struct {
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
	} `json:"written"`
	Comparison *struct {
		Outcome           string      `json:"outcome"`
		FirstDifferent    string      `json:"first_different"`
		OldVerdict        string      `json:"old_verdict"`
		NewVerdict        string      `json:"new_verdict"`
		Rows              []ReplayRow `json:"stages"`
		Diff              []string    `json:"diff"`
		FingerprintsEqual bool        `json:"fingerprints_equal"`
		ChangedConditions []string    `json:"changed_conditions"`
		Normalisation     []string    `json:"normalisation"`
	} `json:"comparison"`
}

// ReplayRow is one stage of one repetition, original beside replay.
type ReplayRow struct {
	Repetition    int      `json:"repetition"`
	Stage         string   `json:"stage"`
	OldStatus     string   `json:"old_status"`
	NewStatus     string   `json:"new_status"`
	OldVerdict    string   `json:"old_verdict"`
	NewVerdict    string   `json:"new_verdict"`
	OldExit       *int     `json:"old_exit_code"`
	NewExit       *int     `json:"new_exit_code"`
	OldFirstError string   `json:"old_first_error"`
	NewFirstError string   `json:"new_first_error"`
	Same          bool     `json:"same"`
	Differences   []string `json:"differences"`
}

// ReplayView is the replay comparison section. A replay result is not
// signed: the page shows it as given, and says whether it names this
// bundle.
type ReplayView struct {
	Outcome        string
	Why            string
	ForThisBundle  bool
	OriginalSHA256 string
	Written        string
	WrittenSHA256  string
	FirstDifferent string
	OldVerdict     string
	NewVerdict     string
	Rows           []ReplayRow
	Diff           []string
	// FingerprintsEqual is "yes", "no" or "" when there is no comparison.
	FingerprintsEqual string
	ChangedConditions []string
	Normalisation     []string
}

// replayView decodes a replay result and checks that it is about the
// bundle whose digest is bundleSHA256.
func replayView(raw []byte, bundleSHA256 string) (*ReplayView, error) {
	if len(raw) > maxReplaySize {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrReplay, maxReplaySize)
	}
	var r replayResult
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	if r.MediaType != ReplayMediaType {
		return nil, fmt.Errorf("%w: media_type %q, want %q", ErrReplay, r.MediaType, ReplayMediaType)
	}
	v := &ReplayView{Outcome: r.Outcome, Why: r.Why, OriginalSHA256: r.OriginalSHA256, ForThisBundle: r.OriginalSHA256 == bundleSHA256}
	if r.Written != nil {
		v.Written, v.WrittenSHA256 = r.Written.Path, r.Written.SHA256
	}
	if c := r.Comparison; c != nil {
		v.FirstDifferent, v.OldVerdict, v.NewVerdict = c.FirstDifferent, c.OldVerdict, c.NewVerdict
		v.Rows, v.Diff, v.ChangedConditions, v.Normalisation = c.Rows, c.Diff, c.ChangedConditions, c.Normalisation
		v.FingerprintsEqual = "no"
		if c.FingerprintsEqual {
			v.FingerprintsEqual = "yes"
		}
	}
	return v, nil
}
