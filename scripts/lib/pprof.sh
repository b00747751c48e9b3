# Helpers for the scripts that split a CPU profile (profile-engine,
# profile-run); sourced, not run.

# pprof_top BINARY PROFILE OUT: the profile's pprof -top -cum listing, every
# node, into OUT.
pprof_top() {
	go tool pprof -top -cum -nodecount=100000 "$1" "$2" >"$3" 2>/dev/null
}

# pprof_total LISTING: the seconds of CPU the profile sampled.
pprof_total() {
	awk '/Total samples/ { for (i = 1; i <= NF; i++) if ($i == "=") { v = $(i+1); u = 1; if (v ~ /ms$/) u = 0.001; sub(/m?s$/, "", v); print v * u } }' "$1"
}

# pprof_cum LISTING REGEXP: the cumulative seconds of the function matching
# REGEXP (0 when absent).
pprof_cum() {
	awk -v re="$2" '$NF ~ re { v = $4; u = 1; if (v ~ /ms$/) u = 0.001; sub(/m?s$/, "", v); print v * u; found = 1; exit } END { if (!found) print 0 }' "$1"
}
