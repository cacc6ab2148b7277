// Package claim owns checking a published declaration of conformity (a
// README's "Conforms to DSHIO/T 10—2026 …", DSHIO/T 10 8.1) against a
// verified evidence bundle (SPEC.md "Claims"): finding and parsing every
// declaration in a text, flagging what the standards forbid wherever it
// appears (DSHIO/T 10 8.1–8.3, DSHIO/T 20's T5 notice, DSHIO/T 21 5.1.1
// and 8.2), and comparing each declaration with the bundle's facts. It is
// pure: text and facts in, findings out.
package claim
