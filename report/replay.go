package report

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/dshaudit/dshaudit/replay/compare"
)

// ReplayMediaType is the media type of `dshaudit replay --json`.
const ReplayMediaType = "application/vnd.dshaudit.replay-result.v1+json"

// maxReplaySize bounds a --replay file.
const maxReplaySize = 16 << 20

// replayDocument is `dshaudit replay --json`: the media type beside the
// replay result.
type replayDocument struct {
	MediaType string `json:"media_type"`
	*compare.Result
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
	Rows           []compare.Row
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
	doc := replayDocument{Result: &compare.Result{}}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	if doc.MediaType != ReplayMediaType {
		return nil, fmt.Errorf("%w: media_type %q, want %q", ErrReplay, doc.MediaType, ReplayMediaType)
	}
	r := doc.Result
	v := &ReplayView{Outcome: r.Outcome.Text(), Why: r.Why, OriginalSHA256: r.OriginalSHA256, ForThisBundle: r.OriginalSHA256 == bundleSHA256}
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
