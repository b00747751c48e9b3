package analysis

import (
	"bytes"
	"fmt"
	"os"

	json "github.com/goccy/go-json"
)

// JobInfo is what the metrics need from a workload file about one job.
type JobInfo struct {
	User  string // "user" field, else "user_id"
	Class string // "profile_class" custom field (precision profile of an inserted request)
}

// ReadJobInfo reads the custom fields of the jobs of a Batsim workload file,
// keyed by the job id as Batsim prints it in _jobs.csv.
func ReadJobInfo(path string) (map[string]JobInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	info, err := ParseJobInfo(data)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", path, err)
	}
	return info, nil
}

// ParseJobInfo is ReadJobInfo on the file's content.
func ParseJobInfo(data []byte) (map[string]JobInfo, error) {
	var w struct {
		Jobs []struct {
			ID     json.RawMessage `json:"id"`
			User   json.RawMessage `json:"user"`
			UserID json.RawMessage `json:"user_id"`
			Class  json.RawMessage `json:"profile_class"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("not a workload file: %w", err)
	}
	out := make(map[string]JobInfo, len(w.Jobs))
	for i, j := range w.Jobs {
		id := scalarText(j.ID)
		if id == "" {
			return nil, fmt.Errorf("job #%d: no id", i)
		}
		user := scalarText(j.User)
		if user == "" {
			user = scalarText(j.UserID)
		}
		out[id] = JobInfo{User: user, Class: scalarText(j.Class)}
	}
	return out, nil
}

// scalarText is a JSON string's value or a number's literal text ("" for
// null, absent and non-scalars).
func scalarText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	if raw[0] == '{' || raw[0] == '[' {
		return ""
	}
	return string(raw)
}

// ClassOf maps job ids to their precision profile class.
func ClassOf(info map[string]JobInfo) map[string]string {
	out := map[string]string{}
	for id, ji := range info {
		if ji.Class != "" {
			out[id] = ji.Class
		}
	}
	return out
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
