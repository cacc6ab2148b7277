// Package compare holds the pure half of a replay (SPEC.md "Replay"):
// the result types (Result, Comparison, Row, Outcome), the stage-by-stage
// comparison of an original bundle with its replay, and the documented
// normalisation of evidence. It runs nothing and imports no runner,
// engine or package fetcher, so verify and report may read its types.
package compare
