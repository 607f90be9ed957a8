# SPDX-License-Identifier: GPL-2.0
# Part of the host-side topology checker (check.awk has the overview, the input
# kinds and the rules; check-run.sh passes all the parts with -f): the machine
# matrix. A small guest booted with one setting users have (no cpuidle driver,
# idle=poll, idle=halt, mitigations off, PTI forced on, no cache topology) runs
# suite.sh's matrix_steps and a harness plan; every check here derives what it
# wants from the guest's own facts (its sysfs snapshot, /proc/cmdline, the CPU
# flags), never from what affbench wrote, so a wrong fact in machine.txt shows.

# Whitespace runs as one space, ends trimmed: sysfs values against machine.txt's.
function norm(s) { gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }
function nodriver() { return CPUIDLE == "" || CPUIDLE == "none" }
# The value of idle= on the guest's kernel command line, "none" without one.
function boot_idle(    n, w, i, v) {
	v = "none"
	n = split(FACT["cmdline"], w, " ")
	for (i = 1; i <= n; i++) if (w[i] ~ /^idle=/) v = substr(w[i], 6)
	return v
}
function has_flag(f) { return index(FACT["flags"], " " f " ") > 0 }
function yes_no(c, y, n) { return c ? y : n }
function pti_on() { return VULN["meltdown"] ~ /PTI/ }

# machine.txt ("label value" lines; "mitigation NAME:VALUE" repeats) into MV and MIT.
function mx_machine(    i, l, lab, c) {
	split("", MV); split("", MIT)
	for (i = 1; i <= NHM; i++) {
		l = HM[i]
		lab = l; sub(/ .*/, "", lab)
		sub(/^[^ ]+ +/, "", l)
		c = index(l, ":")
		if (lab == "mitigation") MIT[substr(l, 1, c - 1)] = substr(l, c + 1)
		else if (!(lab in MV)) MV[lab] = l
	}
}
# mx_is LABEL WANT WHAT: machine.txt's LABEL starts with WANT (a regular expression).
function mx_is(lab, want, what) {
	if (!(lab in MV)) bad("machine.txt: no " lab " line (" what ")")
	else if (MV[lab] !~ want)
		bad("machine.txt: " lab " " MV[lab] ", the guest's facts say " what)
	else ok("machine.txt: " lab " " MV[lab])
}
# Every vulnerabilities file has its mitigation line, with its value, and no other.
function mx_mitigations(    n, v, nb) {
	n = 0; nb = 0
	for (v in VULN) {
		n++
		if (!(v in MIT)) {
			bad("machine.txt: no mitigation line for " v " (sysfs: " VULN[v] ")"); nb++
		} else if (norm(MIT[v]) != norm(VULN[v])) {
			bad("machine.txt: mitigation " v ":" MIT[v] ", sysfs says " VULN[v]); nb++
		}
	}
	for (v in MIT) if (!(v in VULN)) {
		bad("machine.txt: mitigation " v ", not in the guest's sysfs"); nb++
	}
	if (!n) bad("the snapshot has no vulnerabilities/ files to check mitigation lines against")
	else if (!nb) ok("machine.txt: every mitigation line as sysfs says (" n ", meltdown:" \
			 MIT["meltdown"] ")")
}
function mx_facts(    want, hyp, pcid) {
	mx_machine()
	want = "driver=" (nodriver() ? "none" : CPUIDLE) " governor=" \
		(GOVERNOR == "" ? "none" : GOVERNOR)
	mx_is("cpuidle", "^" want "$", want)
	mx_is("idle_cmdline", "^" boot_idle() "$", "idle=" boot_idle() " on the command line")
	mx_mitigations()
	pcid = has_flag("pcid")
	if (norm(FACT["flags"]) == "") mx_is("pcid", "^\\(unavailable", "no flags in /proc/cpuinfo")
	else mx_is("pcid", yes_no(pcid, "^yes$", "^no$"),
		   "pcid " yes_no(pcid, "in", "not in") " the CPU flags")
	mx_is("pti", pti_on() ? "^on" : "^off$", "meltdown: " VULN["meltdown"])
	hyp = has_flag("hypervisor")
	mx_is("hypervisor", yes_no(hyp, "^yes", "^none seen"),
	      "the CPU flag hypervisor " yes_no(hyp, "set", "clear"))
	mx_is("hypervisor_name", ".", "a hypervisor_name line")
	mx_is("topology_src", yes_no(CACHE0 == "yes", "^read", "^guessed"),
	      "cpu0/cache/index0 " yes_no(CACHE0 == "yes", "present", "absent"))
	mx_is("syscall_ns", "^[0-9]+(\\.[0-9]+)? ", "a measured number of ns")
	mx_is("pipe_rt_ns", "^[0-9]+(\\.[0-9]+)? ", "a measured number of ns")
	if ("clocksource" in FACT) {	# snapshots from before it have none
		mx_is("clocksource", "^" FACT["clocksource"] "$", "clocksource " FACT["clocksource"])
		mx_is("clock_ns", "^[0-9]+(\\.[0-9]+)? ", "a measured number of ns")
	}
}

# The records of a step: the idle= values seen (MXIDLE), whether each pair's two CPUs have
# mon_cpuN_idle_pct and mon_allcpus_idle_pct in 0-100 (MXNOIDLE counts what is missing), and
# how many mon_spinner_cpu_pct records there are (MXSPIN).
function mx_records(s,    i, f, kv, k, n, m) {
	MXIDLE = ""; MXNOIDLE = 0; MXSPIN = 0; n = 0
	split("", m)
	for (i = 1; i <= NREC[s]; i++) {
		if (csvsplit(REC[s, i], f) != 6 || f[1] != "cpupair") continue
		cfgsplit(f[2], kv)
		k = ("idle" in kv) ? kv["idle"] : "as-found"
		if (index(MXIDLE " ", " " k " ") == 0) MXIDLE = MXIDLE " " k
		n++
		if (f[4] ~ /_idle_pct$/ && (f[5] + 0 < 0 || f[5] + 0 > 100.5)) {
			bad(s ": " f[4] " " f[5] " outside 0-100"); MXNOIDLE++
		}
		m[kv["cpu_a"] SUBSEP kv["cpu_b"] SUBSEP f[4]] = 1
		m[kv["cpu_a"] SUBSEP kv["cpu_b"]] = 1
		if (f[4] == "mon_spinner_cpu_pct") MXSPIN++
	}
	for (k in m) {
		if (split(k, f, SUBSEP) != 2) continue
		if (!((k SUBSEP "mon_allcpus_idle_pct") in m)) MXNOIDLE++
		if (!((k SUBSEP "mon_cpu" f[1] "_idle_pct") in m)) MXNOIDLE++
		if (!((k SUBSEP "mon_cpu" f[2] "_idle_pct") in m)) MXNOIDLE++
	}
	return n
}
# A lever that acts (busy, as-found) must run, every record carrying its idle= value and the
# idle share of the pair's CPUs.
function mx_runs(s, want,    n) {
	if (!(s in STEPRC)) { bad(s ": not run"); return }
	if (STEPRC[s] != 0) { bad(s ": exit " STEPRC[s] ": " LASTERR[s]); return }
	n = mx_records(s)
	if (!n) { bad(s ": no records"); return }
	if (MXIDLE != " " want) {
		bad(s ": records carry idle values" MXIDLE ", want " want)
		return
	}
	if (MXNOIDLE) {
		bad(s ": " MXNOIDLE " pair(s) without mon_allcpus_idle_pct or " \
		    "mon_cpuN_idle_pct of both CPUs")
		return
	}
	ok(s ": exit 0, " n " records, all idle=" want ", the idle share (mon_allcpus_idle_pct, " \
	   "mon_cpuN_idle_pct) of each pair's CPUs")
}
# --idle poll and max-latency:US act only through a cpuidle governor.
function mx_qos(s, want) {
	if (!(s in STEPRC)) { bad(s ": not run"); return }
	if (nodriver()) {
		if (STEPRC[s] == 4 && NERR[s] == 1 && LASTERR[s] ~ /no cpuidle driver/ &&
		    !mx_records(s))
			ok(s ": no cpuidle driver: exit 4, one line: " LASTERR[s])
		else bad(s ": no cpuidle driver, want exit 4 and one line naming it, got exit " \
			 STEPRC[s] " and " NERR[s] " line(s): " LASTERR[s])
	} else if (PMQOS == "no") {
		if (STEPRC[s] == 4 && LASTERR[s] ~ /cpu_dma_latency/)
			ok(s ": no /dev/cpu_dma_latency: exit 4: " LASTERR[s])
		else bad(s ": no /dev/cpu_dma_latency, want exit 4 naming it, got exit " STEPRC[s] \
			 ": " LASTERR[s])
	} else mx_runs(s, want)
}
# The harness's points of the plan's idle axis: each ran, or was skipped by the same rule.
function mx_plan(    i, f, nf, r, pol, bad1, seen) {
	if (HRC != "0") bad("harness run: exit " HRC)
	if (RRC != "0") bad("harness restore: exit " RRC)
	for (i = 1; i <= NHF; i++)
		if (csvsplit(HFAIL[i], f) >= 5 && f[1] != "bench") HFR[f[1], f[2]] = f[5]
	bad1 = 0; seen = ""
	for (i = 1; i <= NRUNS; i++) {
		nf = csvsplit(RUNS[i], f)
		if (f[1] != "cpupair") continue
		pol = f[8]; sub(/.*idle=/, "", pol); sub(/;.*/, "", pol)
		seen = seen " " pol ":" f[4]
		r = HFR[f[1], f[8]]
		if (pol == "poll" && nodriver()) {
			if (f[4] != "skipped" || r !~ /no cpuidle driver/) {
				bad("harness cpupair idle=poll: " f[4] " (" r "), want skipped " \
				    "naming no cpuidle driver"); bad1++
			}
		} else if (f[4] != "ok") {
			bad("harness cpupair idle=" pol ": " f[4] " (exit " f[5] "): " r); bad1++
		}
	}
	if (seen == "") bad("harness: runs.csv has no cpupair point")
	else if (!bad1) ok("harness: the idle axis's points:" seen \
			   (nodriver() ? " (poll skipped: no cpuidle driver)" : ""))
	mx_runs_h()
}
# The plan's as-found and busy records in raw.csv carry the idle share too.
function mx_runs_h(    n) {
	n = mx_records("harness")
	if (!n) bad("harness raw.csv: no cpupair records")
	else if (MXNOIDLE)
		bad("harness raw.csv: " MXNOIDLE " pair(s) without the idle share of both CPUs")
	else if (!MXSPIN) bad("harness raw.csv: no mon_spinner_cpu_pct for the busy point")
	else ok("harness raw.csv: " n " records, the idle share of each pair's CPUs, " MXSPIN \
		" mon_spinner_cpu_pct")
}
# report.md's warnings name what the guest's facts say, and only that.
function mx_warn(what, pat, want,    i, got) {
	got = 0
	for (i = 1; i <= NWARN; i++) if (WARN[i] ~ pat) got = 1
	if (got == want) ok("report.md " (want ? "warns: " : "does not warn: ") what)
	else bad("report.md " (want ? "does not warn: " : \
			       "warns, though the guest's facts say otherwise: ") what)
}
function check_matrix() {
	print "guest: " DESC
	print "  cpuidle driver " (nodriver() ? "none" : CPUIDLE) ", idle=" boot_idle() \
		", meltdown: " VULN["meltdown"] ", pcid " yes_no(has_flag("pcid"), "yes", "no") \
		", cache topology " yes_no(CACHE0 == "yes", "in sysfs", "absent")
	print ""
	print "checks:"
	mx_facts()
	mx_runs("idle-as-found", "as-found")
	mx_qos("idle-poll", "poll")
	mx_qos("idle-max-latency", "max-latency:10")
	check_cp_haltpoll("idle-haltpoll")
	mx_runs("idle-busy", "busy")
	if (MXSPIN)
		ok("idle-busy: " MXSPIN " mon_spinner_cpu_pct records (the spinners' CPU price)")
	else bad("idle-busy: no mon_spinner_cpu_pct record (the spinners' CPU price)")
	mx_plan()
	if (!NWARN) bad("report.md: no \"## Warnings\" section with a warning")
	mx_warn("no cpuidle driver", "^- no cpuidle driver", nodriver())
	mx_warn("PTI without PCID", "^- PTI without PCID", pti_on() && !has_flag("pcid"))
	mx_warn("no cache topology in sysfs", "^- no cache topology in sysfs", CACHE0 != "yes")
	mx_warn("idle=poll", "^- idle=poll", boot_idle() == "poll")
}
