// Package termtext makes text from an untrusted source (a bundle, a
// package, a registry, a README) safe to print for a person on a terminal
// (SPEC.md "Output safety"): Escape writes every character that is not
// graphic as a visible escape, so that no such text can move the cursor,
// colour, clear, reorder (bidi), hide or start a line of its own; Field
// also bounds its length; Table lays out escaped cells in the terminal's
// width, wrapping or cutting long cells. JSON output never goes through
// this package: it keeps the raw values.
package termtext
