# SPDX-License-Identifier: GPL-2.0
# Part of the host-side topology checker (check.awk has the overview, the input
# kinds and the rules; check-run.sh passes all the parts with -f): the split of
# "other minus same" in the harness's report.md (cputestfs/report_split.c), by
# its behaviour, never its times. Its four forms, one paragraph each:
#   holds     "Of the X us a stat() served on CPU B for a caller on CPU A costs more than
#             one served on the caller's CPU ([lo, hi]), C are the cache transfers (...),
#             W the wake-ups crossing adds (...) and F FUSE's own path (...)."
#   not held  "Other minus same: E per stat() (...). Its split ... does not hold on this
#             machine: P would be below zero beyond its interval." (or: "its parts would
#             not add up within their intervals: ...") "The measured pieces: ..."
#   no cost   "A stat() served on CPU B for a caller on CPU A took X us less than one served
#             on the caller's CPU (E), so there is no extra cost to split here. The measured
#             pieces: ..."
#   none      "Other minus same: X us per stat(). Its split ... cannot be given: WHY."
# C, W and F are each "V us [lo, hi]" (C may be "none apart": 0); E is one too.

# report.md's split paragraph(s)
kind == "hreport" && (/^Of the .* us a stat\(\) served on CPU / || /^Other minus same: / ||
	/^A stat\(\) served on CPU .* us less than one served on the caller's CPU/) {
	NSPLIT++; SPLIT[NSPLIT] = $0; next
}

# A number as report_split.c prints it (ab_r_num), or "unbounded".
function sp_num() { return "(-?[0-9][0-9.]*(e[-+][0-9]+)?|unbounded)" }
# "V us [lo, hi]"
function sp_est() { return "-?[0-9][0-9.]*(e[-+][0-9]+)? us \\[" sp_num() ", " sp_num() "\\]" }
# The first "V us [lo, hi]" in t into SPV, SPLO, SPHI ("unbounded": an end without bound).
function sp_parse(t,    q) {
	if (!match(t, sp_est())) return 0
	t = substr(t, RSTART, RLENGTH)
	split(t, q, " ")
	SPV = q[1] + 0
	SPLO = q[3] == "[unbounded," ? -1e300 : substr(q[3], 2) + 0
	SPHI = q[4] == "unbounded]" ? 1e300 : q[4] + 0
	return 1
}
# The text of p between the end of its first match of a and the start of b's after it.
function sp_between(p, a, b) {
	if (!match(p, a)) return ""
	p = substr(p, RSTART + RLENGTH)
	return match(p, b) ? substr(p, 1, RSTART - 1) : ""
}
# The form of paragraph p, by its first sentence: holds, not-held, no-cost, none, or ""
# when it is none of them.
function sp_form(p,    e, cpu) {
	e = sp_est(); cpu = "CPU [0-9]+"
	if (p ~ ("^Of the " sp_num() " us a stat\\(\\) served on " cpu " for a caller on " cpu \
		" costs more than one served on the caller's CPU \\(\\[" sp_num() ", " sp_num() \
		"\\]\\), (" e "|none apart) are the cache transfers \\(.*\\), " e " the wake-ups " \
		"crossing adds \\(.*\\) and " e " FUSE's own path \\(.*\\)\\."))
		return "holds"
	if (p ~ ("^Other minus same: " e " per stat\\(\\) \\(" cpu " serving a caller on " cpu \
		"\\)\\. Its split into cache transfers, wake-ups and FUSE's own path does not hold " \
		"on this machine: ((the cache transfers|the wake-ups crossing adds|FUSE's own path) " \
		"would be below zero beyond its interval|its parts would not add up within their " \
		"intervals: at 0 or more each, their lower ends add to " sp_num() " us, above other " \
		"minus same's upper end, " sp_num() " us)\\."))
		return "not-held"
	if (p ~ ("^A stat\\(\\) served on " cpu " for a caller on " cpu " took " sp_num() " us " \
		"less than one served on the caller's CPU \\(" e "\\), so there is no extra cost " \
		"to split here\\."))
		return "no-cost"
	if (p ~ ("^Other minus same: " sp_num() " us per stat\\(\\)\\. Its split into cache " \
		"transfers, wake-ups and FUSE's own path cannot be given: "))
		return "none"
	return ""
}
# The measured pieces' sentence (report_split.c: pieces_text), in p.
function sp_pieces(p,    e) {
	e = sp_est()
	return p ~ (" The measured pieces: cpupair's (pipe|futex) round trip between CPUs [0-9]+ " \
		"and [0-9]+ took " e ", on CPU [0-9]+ alone " e ", and the cache-line round trip of " \
		"the pair " e "\\.")
}
# Other and same (libfuse, daemon single) both measured in the harness's records: then
# report.md has the paragraph (report_split.c: ctf_split_of).
function sp_both_measured(    i, f, kv, seen) {
	split("", seen)
	for (i = 1; i <= NREC["harness"]; i++) {
		if (csvsplit(REC["harness", i], f) < 6 || f[1] != "cputestfs" || f[4] != "stat_per_s" ||
			!(f[5] + 0 > 0)) continue
		cfgsplit(f[2], kv)
		if (kv["daemon"] == "single" && kv["baseline"] == "fuse" &&
			(!("transport" in kv) || kv["transport"] == "libfuse")) seen[kv["placement"]] = 1
	}
	return ("same" in seen) && ("other" in seen)
}
# The parts of a split that holds: each >= 0, and they add up to the total within the
# printed intervals (some value of each part's interval sums into the total's).
function sp_parts(p, s,    tot, part, name, i, t, lo, hi, v, nneg, tol, slo, shi) {
	t = p; sub(/ costs more than .*/, "", t); sub(/^Of the /, "", t); sub(/ us .*/, "", t)
	v = t + 0
	t = sp_between(p, "on the caller's CPU \\(\\[", "\\]\\)")
	split(t, tot, ", ")
	lo = tot[1] == "unbounded" ? -1e300 : tot[1] + 0
	hi = tot[2] == "unbounded" ? 1e300 : tot[2] + 0
	part[1] = sp_between(p, "on the caller's CPU \\(\\[[^]]*\\]\\), ", " are the cache transfers ")
	part[2] = sp_between(p, "\\), ", " the wake-ups crossing adds ")
	sub(/.*\), /, "", part[2])
	part[3] = sp_between(p, " the wake-ups crossing adds \\(", " FUSE's own path \\(")
	sub(/.*\) and /, "", part[3])
	split("the cache transfers|the wake-ups crossing adds|FUSE's own path", name, "|")
	nneg = 0; slo = 0; shi = 0; tol = 1e-9 + 0.006 * ((v < 0 ? -v : v) + (hi < 1e300 ? hi : 0))
	for (i = 1; i <= 3; i++) {
		if (part[i] == "none apart") { SPV = 0; SPLO = 0; SPHI = 0 }
		else if (!sp_parse(part[i])) { bad(s ": " name[i] ": no \"V us [lo, hi]\" in \"" part[i] \
			"\""); return }
		if (SPV < 0 || SPLO < 0 || SPHI < 0) {
			bad(s ": " name[i] " below zero: " part[i]); nneg++ }
		slo += SPLO; shi += SPHI
		tol += 0.006 * (SPHI < 1e300 ? SPHI : 0)
	}
	if (!nneg) ok(s ": no part below zero (" part[1] "; " part[2] "; " part[3] ")")
	if (slo <= hi + tol && shi >= lo - tol)
		ok(s ": the parts add up to the total within their intervals (lows " slo ", highs " \
			(shi >= 1e300 ? "unbounded" : shi) ", total [" tot[1] ", " tot[2] "])")
	else bad(s ": the parts do not add up to the total within their intervals: lows add to " \
		slo ", highs to " (shi >= 1e300 ? "unbounded" : shi) ", total [" tot[1] ", " tot[2] "]")
}
function check_split(    s, p, form, t) {
	s = "harness report.md split"
	if (NSPLIT == 0) {
		if (sp_both_measured()) bad(s ": no paragraph splitting other minus same, though the " \
			"harness measured other and same (libfuse, daemon single)")
		else note(s ": other and same not both measured: no split to check")
		return
	}
	if (NSPLIT != 1) { bad(s ": " NSPLIT " paragraphs, want one"); return }
	p = SPLIT[1]
	ok(s ": one paragraph: " substr(p, 1, 100) "...")
	form = sp_form(p)
	if (form == "") { bad(s ": none of its four forms (cputestfs/report_split.c): " \
		substr(p, 1, 160)); return }
	ok(s ": the form \"" form "\"")
	# A time is never below zero: no "-N us" (the difference "none" quotes is no time spent).
	t = p
	if (form == "none") sub(/^Other minus same: [^ ]* us per stat\(\)/, "", t)
	if (match(t, /(^|[^0-9.e])-[0-9][0-9.]*(e[-+][0-9]+)? us/))
		bad(s ": a negative time: \"" substr(t, RSTART, RLENGTH) "\"")
	else ok(s ": no negative time as a cost")
	if (form == "holds") sp_parts(p, s)
	if (form == "not-held" || form == "no-cost") {
		if (sp_pieces(p)) ok(s ": " (form == "no-cost" ? "nothing to split" : "the model does " \
			"not hold") ", and the measured pieces are given (cpupair's round trips)")
		else bad(s ": " (form == "no-cost" ? "nothing to split" : "the model does not hold") \
			", without the measured pieces (cpupair's round trips between the CPUs, on one " \
			"alone, and the cache line): " p)
	}
	if (form == "none") {
		t = p; sub(/.* cannot be given: /, "", t)
		if (t ~ /^[a-z].*[a-z0-9)]\.$/) ok(s ": cannot be given, and says why: " t)
		else bad(s ": cannot be given, without a reason: \"" t "\"")
	}
	SPFORM = form
}
