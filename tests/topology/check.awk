# SPDX-License-Identifier: GPL-2.0
# Host-side checker of one emulated-topology result directory (POSIX awk: mawk,
# gawk and busybox awk). check-run.sh feeds it, each file preceded by kind=...:
#   facts    the guest's topology, flattened from its sysfs snapshot by check-run.sh:
#            online LIST | sib CPU LIST | cache CPU LEVEL TYPE LIST | node N LIST |
#            mq DISK QUEUE LIST | virtio DISK DEV | irq N NAME | eff N LIST |
#            cpuset LIST | offline_req CPU | allowed_seen LIST | step NAME RC |
#            harness_rc RC | restore_rc RC | desc TEXT | cpuidle DRIVER | governor NAME |
#            pm_qos yes|no | cmdline TEXT | flags TEXT | vuln NAME VALUE | cache0 yes|no |
#            suite topology|matrix
#   csv      a benchmark's records (step=NAME): bench,config,rep,metric,value,unit
#   err      its stderr (step=NAME); kv: key=value lines (step=NAME)
#   hraw hruns hfail hmachine hreport   the harness run directory's files
# The topology the records are checked against comes from those facts alone,
# never from the project's resolver (lib/sys/topo.c), so a resolver bug shows.
# Prints one line per check ("ok", "FAIL", "note") and the placement table;
# exits 1 when a check failed.
# The functions by concept are in check_place.awk (pair relations, cputestfs and
# sqrtio placements), check_cpupair.awk, check_matrix.awk (the machine matrix) and
# check_split.awk (report.md's split of other minus same); check-run.sh passes all with -f.

function expand(list, set,    n, parts, i, r, k, cnt) {
	split("", set)
	if (list == "" || list == "-")
		return 0
	n = split(list, parts, ",")
	cnt = 0
	for (i = 1; i <= n; i++) {
		if (parts[i] ~ /^[0-9]+-[0-9]+$/) {
			split(parts[i], r, "-")
			for (k = r[1] + 0; k <= r[2] + 0; k++)
				if (!(k in set)) { set[k] = 1; cnt++ }
		} else if (parts[i] ~ /^[0-9]+$/) {
			k = parts[i] + 0
			if (!(k in set)) { set[k] = 1; cnt++ }
		} else
			return -1
	}
	return cnt
}
# Linux list of a set: 0-3,8
function fmt(set,    c, out, start, prev, hi) {
	out = ""; start = -1; prev = -2; hi = -1
	for (c in set) if (c + 0 > hi) hi = c + 0
	for (c = 0; c <= hi + 1; c++) {
		if ((c in set) && c == prev + 1) { prev = c; continue }
		if (c in set) {
			if (start >= 0) out = out (out == "" ? "" : ",") (start == prev ? start : start "-" prev)
			start = c; prev = c
		}
	}
	if (start >= 0) out = out (out == "" ? "" : ",") (start == prev ? start : start "-" prev)
	return out
}
function csvsplit(s, f,    n, i, c, q, cur, L) {
	n = 0; cur = ""; q = 0; L = length(s)
	for (i = 1; i <= L; i++) {
		c = substr(s, i, 1)
		if (q) {
			if (c == "\"") {
				if (substr(s, i + 1, 1) == "\"") { cur = cur "\""; i++ } else q = 0
			} else cur = cur c
		} else if (c == "\"") q = 1
		else if (c == ",") { f[++n] = cur; cur = "" }
		else cur = cur c
	}
	f[++n] = cur
	return n
}
function cfgsplit(cfg, kv,    n, p, i, eq) {
	split("", kv)
	n = split(cfg, p, ";")
	for (i = 1; i <= n; i++) {
		eq = index(p[i], "=")
		if (eq) kv[substr(p[i], 1, eq - 1)] = substr(p[i], eq + 1)
	}
}
function ok(msg) { NOK++; print "  ok    " msg }
function bad(msg) { NBAD++; print "  FAIL  " msg }
function note(msg) { print "  note  " msg }

BEGIN { NOK = 0; NBAD = 0; MAXCPU = 0 }
kind == "facts" {
	if ($1 == "online") { expand($2, ON); ONL = $2 }
	else if ($1 == "sib") { SIBL[$2] = $3; expand($3, T); for (c in T) SIB[$2 + 0, c + 0] = 1 }
	else if ($1 == "cache") {
		if ($4 != "Instruction" && (!($2 in LLCLEV) || $3 + 0 > LLCLEV[$2])) { LLCLEV[$2] = $3 + 0;
			LLCL[$2] = $5 }
	}
	else if ($1 == "node") { expand($3, T); for (c in T) NODE[c] = $2; NODEL[$2] = $3 }
	else if ($1 == "mq") MQ[$2, $3] = $4
	else if ($1 == "virtio") VIRTIO[$2] = $3
	else if ($1 == "irq") IRQOF[$3] = $2
	else if ($1 == "eff") EFF[$2] = $3
	else if ($1 == "cpuset") CPUSET = $2
	else if ($1 == "cpus_arg") CPUSARG = $2
	else if ($1 == "offline_req") OFFREQ = $2
	else if ($1 == "allowed_seen") SEEN = $2
	else if ($1 == "step") { STEPRC[$2] = $3 }
	else if ($1 == "harness_rc") HRC = $2
	else if ($1 == "restore_rc") RRC = $2
	else if ($1 == "maxcpu") MAXCPU = $2 + 0
	else if ($1 == "cpuidle") CPUIDLE = $2
	else if ($1 == "pm_qos") PMQOS = $2
	else if ($1 == "governor") GOVERNOR = $2
	else if ($1 == "cmdline" || $1 == "flags") { k = $1; $1 = ""; FACT[k] = " " substr($0, 2) " " }
	else if ($1 == "vuln") { k = $2; $1 = ""; $2 = ""; VULN[k] = substr($0, 3) }
	else if ($1 == "cache0") CACHE0 = $2
	else if ($1 == "clocksource") FACT["clocksource"] = $2
	else if ($1 == "suite") SUITE = $2
	else if ($1 == "desc") { $1 = ""; DESC = substr($0, 2) }
	next
}
kind == "csv" || kind == "kv" { NREC[step]++; REC[step, NREC[step]] = $0; next }
kind == "err" { NERR[step]++; ERR[step, NERR[step]] = $0; LASTERR[step] = $0; next }
kind == "hraw" { NREC["harness"]++; REC["harness", NREC["harness"]] = $0; next }
kind == "hruns" { NRUNS++; RUNS[NRUNS] = $0; next }
kind == "hfail" { NHF++; HFAIL[NHF] = $0; next }
kind == "hmachine" { NHM++; HM[NHM] = $0; next }
# report.md: the lines of its "## Warnings" section
kind == "hreport" && /^## / { INWARN = ($0 == "## Warnings"); next }
kind == "hreport" && INWARN && /^- / { NWARN++; WARN[NWARN] = $0; next }

END {
	# A machine-matrix guest runs the short behaviour suite (check_matrix.awk).
	if (SUITE == "matrix") {
		check_matrix()
		printf "\n%d checks passed, %d failed\n", NOK, NBAD
		exit NBAD ? 1 : 0
	}
	# ---- the topology, as the guest's sysfs says ----
	for (c in LLCL) { expand(LLCL[c], T); for (k in T) LLCM[c + 0, k + 0] = 1; HASLLC[c] = 1 }
	split("", E); NE = 0
	if (CPUSET != "") expand(CPUSET, REQ); else for (c in ON) REQ[c] = 1
	for (c in REQ) if (c in ON) { E[c] = 1; NE++ }
	EL = fmt(E)
	print "topology from the guest's sysfs (thread_siblings_list, cache/index*/shared_cpu_list, " \
		"node*/cpulist, online):"
	print "  online " ONL "; allowed " EL (CPUSET != "" ? " (taskset -c " CPUSET (OFFREQ != "" ? \
		", cpu" OFFREQ " offline" : "") ")" : "")
	s = ""; split("", SEENC)
	for (c = 0; c <= MAXCPU; c++) if ((c in SIBL) && !(SIBL[c] in SEENC)) { SEENC[SIBL[c]] = 1;
		s = s " " SIBL[c] }
	print "  cores (SMT siblings):" s
	s = ""; split("", SEENC)
	for (c = 0; c <= MAXCPU; c++) if ((c in LLCL) && !(LLCL[c] in SEENC)) { SEENC[LLCL[c]] = 1;
		s = s " " LLCL[c] }
	print "  LLCs:" s
	s = ""; for (c = 0; c <= 64; c++) if (c in NODEL) s = s " node" c "=" NODEL[c]
	print "  NUMA:" (s == "" ? " no node directories" : s)
	print ""
	print "checks:"
	for (c in ON) if (!(c in SIBL)) bad("cpu" c ": online but no thread_siblings_list in the snapshot")
	for (c in ON) if (!(c in LLCL)) bad("cpu" c ": online but no cache information in the snapshot")
	if (OFFREQ != "") {
		if (OFFREQ in ON) bad("cpu" OFFREQ " should be offline but /sys/devices/system/cpu/online says " \
			ONL)
		else ok("cpu" OFFREQ " is offline (online " ONL ")")
	}
	expand(SEEN, T)
	if (fmt(T) == EL) ok("the suite ran with Cpus_allowed_list " SEEN " = allowed and online")
	else bad("the suite ran with Cpus_allowed_list " SEEN ", expected " EL)

	# ---- cputestfs placements, 1 and 2 clients ----
	NPL = split("none same smt llc cross-llc cross-node other", PL, " ")
	placement_table("cputestfs", 1, "1")
	placement_table("cputestfs-2clients", 2, "2")
	# --cpus LIST narrows the allowed set (and "none" then names it)
	if ("cputestfs-cpus" in STEPRC) {
		split("", E0); for (c in E) E0[c] = 1
		EL0 = EL; NE0 = NE
		expand(CPUSARG, T); split("", E); NE = 0
		for (c in T) if (c in E0) { E[c] = 1; NE++ }
		EL = fmt(E); NONE_WANT = EL
		note("cputestfs --cpus " CPUSARG ": allowed " EL)
		placement_table("cputestfs-cpus", 1, "c")
		split("", E); for (c in E0) E[c] = 1
		EL = EL0; NE = NE0; NONE_WANT = ""
	}
	for (s in KMET) if (KMET[s] != "") bad(s \
		": kernel statistics written on a kernel without FUSE tracepoints:" KMET[s])
	# kernel statistics: auto skips with a reason, on exits 4 with it
	for (i = 1; i <= NERR["cputestfs"]; i++) if (ERR["cputestfs", i] ~ \
		/kernel statistics .*: kernel_\* metrics not written/) ks1 = ERR["cputestfs", i]
	if (ks1 != "") ok("cputestfs --kstats auto: " ks1);
		else bad("cputestfs --kstats auto: no line saying why kernel statistics were not written")
	for (i = 1; i <= NERR["ddpar"]; i++) if (ERR["ddpar", i] ~ \
		/kernel statistics .*: kernel_\* metrics not written/) ks2 = ERR["ddpar", i]
	if (ks2 != "") ok("ddpar --kstats auto: " ks2);
		else bad("ddpar --kstats auto: no line saying why kernel statistics were not written")
	split("cputestfs-kstats-on ddpar-kstats-on", KS, " ")
	for (i = 1; i <= 2; i++) {
		s = KS[i]
		if (STEPRC[s] == 4 && LASTERR[s] ~ /kernel statistics/ &&
			LASTERR[s] ~ /tracepoint/) ok(s ": exit 4, " LASTERR[s])
		else bad(s ": want exit 4 with the missing tracepoint named, got exit " STEPRC[s] ": " LASTERR[s])
	}

	# ---- ddpar: the process sweep reaches 2 x the allowed CPUs (ddpar caps it at 128) ----
	top = 2 * NE; if (top < 8) top = 8; if (top > 128) top = 128
	want = ""; for (n = 1; n <= top; n *= 2) want = want " " n
	if (n / 2 != top) want = want " " top
	if (STEPRC["ddpar"] != 0) bad("ddpar: exit " STEPRC["ddpar"] ": " LASTERR["ddpar"])
	split("", DP); split("", DB); split("", DC)
	for (i = 1; i <= NREC["ddpar"]; i++) {
		nf = csvsplit(REC["ddpar", i], f)
		if (f[1] != "ddpar") continue
		cfgsplit(f[2], kv)
		k = kv["mode"] SUBSEP kv["procs"] SUBSEP kv["clone_fd"]
		DP[kv["procs"]] = 1; DMODE[kv["mode"]] = 1
		if (f[4] ~ /_MB_per_s$/) DMB[k] = f[5]
		if (f[4] == "client_bytes") DC[k] = f[5]
		if (f[4] == "daemon_bytes") DB[k] = f[5]
	}
	got = ""; for (n = 1; n <= 256; n++) if (n in DP) got = got " " n
	if (got == want) ok("ddpar: processes" got " (up to 2 x " NE " allowed CPUs" (2 * NE > 128 ? \
		", capped at 128 by ddpar" : "") ")")
	else bad("ddpar: processes" got ", expected" want " (2 x " NE " allowed CPUs)")
	nd = 0; ndb = 0
	if (!("write" in DMODE)) bad("ddpar: no write records")
	for (md in DMODE) for (n = 1; n <= 256; n++) if (n in DP) for (cf = 0; cf <= 1; cf++) {
		k = md SUBSEP n SUBSEP (cf ? "on" : "off")
		pt = "ddpar " md " procs=" n " clone_fd=" (cf ? "on" : "off")
		if (!(k in DMB)) { bad(pt ": no MB/s record"); continue }
		nd++
		if (DC[k] != DB[k] || DC[k] == "") { bad(pt ": client bytes " DC[k] " != daemon bytes " DB[k]);
			ndb++ }
	}
	modes = ""; for (md in DMODE) modes = modes " " md
	if (nd && !ndb) ok("ddpar:" modes ": " nd " points measured, daemon bytes = client bytes in each")
	if (2 * NE > 128) note("ddpar cannot sweep to 2 x " NE " = " 2 * NE \
		" processes: --procs is limited to 128 (documented)")

	# ---- sqrtio: IRQ discovery and readers on/off the completing CPU, per disk ----
	SQWANT["sqrtio"] = " 0 1 2 "; DISKOF["sqrtio"] = "vda"
	check_sqrtio("vda", "sqrtio-discover", "sqrtio", "vda (multi-queue)")
	if ("sqrtio-1q" in STEPRC) {
		SQWANT["sqrtio-1q"] = " 1 "; DISKOF["sqrtio-1q"] = "vdb"
		check_sqrtio("vdb", "sqrtio-1q-discover", "sqrtio-1q", "vdb (one queue)")
	}
	s = "sqrtio-irq-affinity"
	if (STEPRC[s] == 4 &&
		LASTERR[s] ~ /refuses to move this IRQ/) ok(s ": skipped with the reason: " LASTERR[s])
	else if (STEPRC[s] == 0 && NREC[s] > 1) ok(s ": ran (the IRQ could be moved)")
	else bad(s ": exit " STEPRC[s] ": " LASTERR[s])

	# ---- fdget: N-worker modes take one worker per allowed CPU ----
	if (STEPRC["fdget"] != 0) bad("fdget: exit " STEPRC["fdget"] ": " LASTERR["fdget"])
	split("", FM)
	for (i = 1; i <= NREC["fdget"]; i++) {
		nf = csvsplit(REC["fdget", i], f)
		if (f[1] != "fdget") continue
		cfgsplit(f[2], kv)
		if (f[4] == "ns_per_op") FM[kv["mode"]] = kv["threads"]
		if (f[4] == "us_per_spawn") FSP = 1
	}
	nm = split("single idle-thread shared-fd private-fd procs", M, " ")
	fg = 1
	for (i = 1; i <= nm; i++) {
		if (!(M[i] in FM)) { bad("fdget: no ns_per_op for mode " M[i]); fg = 0; continue }
		w = (i <= 2) ? 1 : NE
		if (FM[M[i]] != w) {
			bad("fdget " M[i] ": threads=" FM[M[i]] ", want " w " (one per allowed CPU)"); fg = 0 }
	}
	if (fg) ok("fdget: all modes measured; shared-fd, private-fd, procs with " NE \
		" workers (one per allowed CPU)")
	if (!FSP) bad("fdget: no us_per_spawn record")

	# ---- cpupair: the matrix (small shapes), the classes sample, the idle axis ----
	if ("cpupair-matrix" in STEPRC) check_cp_matrix("cpupair-matrix")
	else if (CNT(ON) <= 16) bad("cpupair-matrix: not run on " CNT(ON) \
		" online CPUs (suite.sh runs it up to 16)")
	check_cp_classes("cpupair-classes")
	check_cp_poll("cpupair-idle-poll")
	check_cp_haltpoll("cpupair-idle-haltpoll")

	# ---- the harness run ----
	derive("vda", HLOC, HREM, HUNI)
	if (HRC != "0") bad("harness run: exit " HRC)
	if (RRC != "0") bad("harness restore: exit " RRC)
	nfail = 0; nskip = 0; nrun = 0
	for (i = 1; i <= NHF; i++) {
		if (csvsplit(HFAIL[i], f) < 5 || f[1] == "bench") continue
		HFR[f[1], f[2]] = f[5]
	}
	for (i = 1; i <= NRUNS; i++) {
		nf = csvsplit(RUNS[i], f)
		if (f[1] == "bench") continue
		nrun++
		if (f[4] == "ok") continue
		r = HFR[f[1], f[8]]
		if (f[4] == "skipped") {
			nskip++
			if (r !~ /^skipped: ./) {
				bad("harness " f[1] " " f[8] ": skipped without a reason in failures.csv"); continue }
			# Is the skip the machine's? Placements and sqrtio points are checked against the snapshot.
			if (f[1] == "cputestfs" && f[8] ~ /placement=/) {
				p = f[8]; sub(/.*placement=/, "", p); sub(/;.*/, "", p)
				HSKIPPED[p] = 1
				if (possible(p)) bad("harness cputestfs " p ": skipped (" r ") but the allowed CPUs offer it")
				else ok("harness cputestfs " p ": " r)
			} else if (f[1] == "sqrtio" && f[8] ~ /local=/) {
				l = f[8]; sub(/.*local=/, "", l); l = substr(l, 1, 1)
				if (l == 1 ? CNT(HLOC) : CNT(HREM)) bad("harness sqrtio " f[8] ": skipped (" r \
					") but the derived map offers it")
				# The machine's reason names the completing CPUs; "reasons above" points at a log
				# line failures.csv and report.md do not carry.
				else if (r !~ /complet/) bad("harness sqrtio " f[8] \
					": skipped, but failures.csv does not say why (\"" r "\"): the reason (" (l == 1 ? \
					"no allowed CPU completes its own reads" : "every allowed CPU completes its own reads") \
					") is only in the point's log")
				else ok("harness sqrtio " f[8] ": " r)
			} else note("harness " f[1] " " f[8] ": " r)
			HT[f[1] " " f[8]] = r
		} else {
			nfail++
			bad("harness " f[1] " " f[8] " rep " f[3] ": " f[4] " (exit " f[5] "): " r)
		}
	}
	if (nrun == 0) bad("harness: runs.csv lists no invocation")
	else if (!nfail) ok("harness: " nrun " invocations, none failed, " nskip " skipped with a reason")
	for (i = 1; i <= NREC["harness"]; i++) collect_cfs("harness", REC["harness", i])
	for (dm in HDAEMON) for (i = 1; i <= NPL; i++) {
		p = PL[i]; s = "harness daemon=" dm
		if ((s SUBSEP p) in PLC) {
			t = check_pl(s, p, 1, PLC[s, p], PLD[s, p])
			pinned_check(s, p)
			if (!possible(p)) bad(s " " p ": ran although the snapshot says it cannot (" why_not(p) ")")
		} else t = HSKIPPED[p] ? "skipped" : "-"
		if (dm == "single" || !((SUBSEP p) in TABH)) TAB["h", p] = t
		if (dm == "single") TABH[SUBSEP p] = 1
	}
	for (i = 1; i <= NPL; i++) if (!(("h" SUBSEP PL[i]) in TAB)) TAB["h", PL[i]] = HSKIPPED[PL[i]] ? \
		"skipped" : "-"
	# harness sqrtio records: the same rules as the direct run
	for (i = 1; i <= NREC["harness"]; i++) {
		nf = csvsplit(REC["harness", i], f)
		if (f[1] != "sqrtio") continue
		cfgsplit(f[2], kv)
		pt = "rq=" kv["rq"] " local=" kv["local"]
		if (("harness" SUBSEP pt) in SQPT) continue
		SQPT["harness", pt] = 1
		DISKOF["harness"] = "vda"
		check_sq_point("harness sqrtio", pt, kv, HLOC, HREM, HUNI)
	}
	# machine.txt: the harness saw the same machine, and put every knob back
	split("", KB); split("", KA); hm_allowed = ""
	for (i = 1; i <= NHM; i++) {
		l = HM[i]
		if (l ~ /^allowed_cpus /) { hm_allowed = l; sub(/^allowed_cpus +/, "", hm_allowed);
			sub(/ .*/, "", hm_allowed) }
		if (l ~ /^online_cpus /) { hm_online = l; sub(/^online_cpus +/, "", hm_online) }
		if (l ~ /^sqrtio.*\((failed|discovery failed)/) bad("harness machine.txt: " l)
		if (l ~ /^knob before /) { k = l; sub(/^knob before +/, "", k); KB[k] = 1; nkb++ }
		if (l ~ /^knob after /) { k = l; sub(/^knob after +/, "", k); KA[k] = 1; nka++ }
	}
	expand(hm_allowed, T)
	if (fmt(T) == EL) ok("harness machine.txt: allowed_cpus " hm_allowed)
	else bad("harness machine.txt: allowed_cpus " hm_allowed ", expected " EL)
	if (hm_online == ONL) ok("harness machine.txt: online_cpus " hm_online)
	else bad("harness machine.txt: online_cpus " hm_online ", sysfs says " ONL)
	kd = 0
	for (k in KB) if (!(k in KA)) { bad("harness machine.txt: knob " k " before, not after"); kd++ }
	for (k in KA) if (!(k in KB)) { bad("harness machine.txt: knob " k " after, not before"); kd++ }
	if (!kd && nkb) ok("harness machine.txt: " nkb " knobs the same before and after")
	if (!nkb) bad("harness machine.txt: no knob before/after lines")

	for (s in PINOK) ok(s ": same_cpu_pct 100 under same, 0 under two-CPU placements, to a call (" \
		PINOK[s] " placements): the daemon ran where it was pinned")
	check_split()	# report.md's split of other minus same (check_split.awk)
	# ---- the table ----
	print ""
	print "placements (cputestfs; client/daemon CPUs as resolved in the guest):"
	printf "  %-11s %-12s %-20s %-14s %s\n", "placement", "1 client", "2 clients", "harness plan",
		("cputestfs-cpus" in STEPRC) ? "--cpus " CPUSARG : ""
	for (i = 1; i <= NPL; i++) {
		p = PL[i]
		printf "  %-11s %-12s %-20s %-14s %s\n", p, TAB["1", p], TAB["2", p], TAB["h", p], TAB["c", p]
	}
	for (i = 1; i <= NPL; i++) if (PL[i] in SKIPNOTE) print "  skipped: " SKIPNOTE[PL[i]]
	print "sqrtio points (readers on/off the CPU completing the disk's reads):"
	split("vda (multi-queue)|vdb (one queue)", LABS, "|")
	for (i = 1; i <= 2; i++) for (rq = 0; rq <= 2; rq++) for (l = 0; l <= 1; l++)
		if ((LABS[i] SUBSEP "rq=" rq " local=" l) in SQT)
			printf "  %-18s %-16s %s\n", LABS[i], "rq=" rq " local=" l, SQT[LABS[i], "rq=" rq " local=" l]
	printf \
		"cpupair: matrix %s; classes%s; --idle poll %s; --idle haltpoll:NS %s (cpuidle driver %s)\n",
		CPMAT == "" ? "-" : CPMAT, CPCLS == "" ? " -" : CPCLS, CPPOLL == "" ? "-" : CPPOLL,
		CPHALT == "" ? "-" : CPHALT, CPUIDLE == "" ? "none" : CPUIDLE
	print ""
	printf "%d checks passed, %d failed\n", NOK, NBAD
	exit NBAD ? 1 : 0
}
