// Package batch runs `dshaudit run` for many package specs on a scheduler
// that is not ours: Slurm (one array job, one task per spec) or this
// machine's processes, and reads what came back from the tasks' exit codes
// and the bundles themselves. It is resumable: a spec's bundle is named by
// package@version and image digest, a bundle that already verifies is
// not run again, failed tasks are retried with backoff, and an interrupted
// batch cancels its tasks and leaves no half-written bundle. DESIGN.md
// "Batch runs"; the schedulers, and how it scales, are docs/batch.md.
package batch
