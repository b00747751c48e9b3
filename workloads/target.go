package workloads

import (
	"errors"
	"fmt"
)

// The Batsims a workload is checked for (CheckFor).
const (
	ForBatsim4 = "batsim4" // Batsim 4.2.1
	ForBatsim5 = "batsim5" // Batsim 5.0.0-rc2
)

// Format is the format the workload was read in: "Batsim 4" or "Batsim 5".
func (w *Workload) Format() string {
	if w.V5 {
		return "Batsim 5"
	}
	return "Batsim 4"
}

// TargetName is the Batsim release a CheckFor target stands for.
func TargetName(target string) string {
	if target == ForBatsim5 {
		return "Batsim 5.0.0-rc2"
	}
	return "Batsim 4.2.1"
}

// CheckFor checks the workload for the Batsim it is given to: target
// ForBatsim4 (Batsim 4.2.1) or ForBatsim5 (Batsim 5.0.0-rc2). Each Batsim
// refuses the other's profile types, so a file in the other format is an
// error naming one of its profiles, with what to do; then come Validate's
// findings (Batsim 4.2.1's reading, which Batsim 5 shares for what both
// formats hold) and, for Batsim 5, what it reads otherwise (a file of its
// format: a walltime that is not strictly positive, an extra_data that is
// not a string or an object, a job's field outside extra_data, which
// Batsim 5 does not forward; a file of Batsim 4's format: what
// `bucma workload to-v5` would refuse).
func (w *Workload) CheckFor(target string, opts ValidateOptions) (errs, warns []Finding, err error) {
	var pre []Finding
	mismatch := func(format string, args ...any) {
		pre = append(pre, Finding{Severity: Error, File: w.Path, Profile: w.formatProfile, Msg: fmt.Sprintf(format, args...)})
	}
	switch target {
	case ForBatsim4:
		if w.V5 {
			mismatch("type %q is Batsim 5's: the file is in Batsim 5's format, which Batsim 4.2.1 aborts on; "+
				"run it with batsim5 (check it with --for %s), or with bucma simulate, which reads both formats", w.formatType, ForBatsim5)
		}
	case ForBatsim5:
		if !w.V5 && len(w.ProfileOrder) > 0 {
			name := w.ProfileOrder[0]
			pre = append(pre, Finding{Severity: Error, File: w.Path, Profile: name, Msg: fmt.Sprintf(
				"type %q is Batsim 4's: the file is in Batsim 4's format, whose profile types Batsim 5 refuses; "+
					"bucma workload to-v5 %s -o OUT converts it", w.Profiles[name].Type, w.Path)})
			if _, cerr := w.ToV5(); cerr != nil {
				var ce *ConversionError
				if !errors.As(cerr, &ce) {
					return nil, nil, cerr
				}
				for _, p := range ce.Problems {
					p.Msg = "to-v5 would refuse it: " + p.Msg
					pre = append(pre, p)
				}
			}
		}
	default:
		return nil, nil, fmt.Errorf("target %q: want %s or %s", target, ForBatsim4, ForBatsim5)
	}
	errs, warns = w.Validate(opts)
	errs = append(pre, errs...)
	if target == ForBatsim5 {
		for _, f := range w.v5Findings {
			if f.Severity == Error {
				errs = append(errs, f)
			} else {
				warns = append(warns, f)
			}
		}
	}
	return errs, warns, nil
}
