package verify

import "github.com/dshaudit/dshaudit/rules"

// checkInstallSource holds every path into pnpm's virtual store that a
// stage's output shows for the subject's package (a stack trace into the
// profile's node_modules included) to subject.source: a "file+…"
// directory is a local install, a version's one the registry's (SPEC.md
// "The run model"; rules.InstallSourceAgrees). One finding per stage.
// A path of the subject's kind of source also names the subject's
// version (registry) or subject.spec (local): otherwise the package that
// ran is another version or file of it (rules.InstalledObjectAgrees, a
// finding on subject.spec, one per stage).
func (vf *verification) checkInstallSource(models []stageModel) {
	sub := vf.m.Subject
	name, home := vf.recordedProfile()
	dir := ""
	if home != "" && name != "" {
		dir = home + "/profiles/" + name
	}
	for _, sm := range models {
		for _, p := range sm.model.StorePaths {
			if why := rules.InstallSourceAgrees(sub.Source, sub.Name, p); why != "" {
				vf.rep.addf(ClassSubjectMismatch, "subject.source", "DSHIO/T 21 5.1.8",
					"%s (%s)", why, sm.field)
				break
			}
		}
		for _, p := range sm.model.StorePaths {
			if why := rules.InstalledObjectAgrees(sub.Source, sub.Name, sub.Version, sub.Spec, dir, p); why != "" {
				vf.rep.addf(ClassSubjectMismatch, "subject.spec", "DSHIO/T 10 7.2",
					"%s (%s)", why, sm.field)
				break
			}
		}
	}
}
