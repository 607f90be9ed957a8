# SPDX-License-Identifier: GPL-2.0
# Part of the host-side topology checker (check.awk has the overview, the input
# kinds and the rules; check-run.sh passes all the parts with -f): cpupair's
# pairs, their topology order and classes, and the idle axis.

# ---- cpupair: pairs, their topology order and classes, the idle axis ----
# The class of two CPUs as cpupair names it (lib/sys/topo_order.c), from the snapshot.
function pclass(x, y) {
	if ((x SUBSEP y) in SIB) return "smt"
	if ((x SUBSEP y) in LLCM) return "llc"
	if ((x in NODE) && (y in NODE) && NODE[x] != NODE[y]) return "cross-node"
	return "cross-llc"
}
# Reads a cpupair step's records into CPA/CPB/CCL (per pair), CPM (pair, metric) and
# CPOS (cpu -> position); returns the number of ordered pairs, or -1 after a FAIL.
function cp_read(s,    i, f, nf, kv, k, bad1) {
	split("", CPA); split("", CPB); split("", CCL); split("", CPM); split("", CPOS); split("", CPK)
	NCP = 0; CPIDLE = ""; bad1 = 0
	for (i = 1; i <= NREC[s]; i++) {
		nf = csvsplit(REC[s, i], f)
		if (f[1] != "cpupair") continue
		if (nf != 6) { bad(s ": malformed record: " REC[s, i]); return -1 }
		cfgsplit(f[2], kv)
		k = ("idle" in kv) ? kv["idle"] : "as-found"
		if (index(CPIDLE " ", " " k " ") == 0) CPIDLE = CPIDLE " " k
		if (kv["cpu_a"] == kv["cpu_b"]) {	# the diagonal: the wake-ups on one CPU alone
			if (kv["class"] != "same" || f[4] ~ /^line/) {
				bad(s ": a CPU with itself is class same, of the wake-ups alone: " REC[s, i]); bad1 = 1
			}
			continue
		}
		k = kv["cpu_a"] SUBSEP kv["cpu_b"]
		if (!(k in CPK)) { CPK[k] = ++NCP; CPA[NCP] = kv["cpu_a"] + 0; CPB[NCP] = kv["cpu_b"] + 0;
			CCL[NCP] = kv["class"] }
		CPM[k, f[4]] = 1
		if ((kv["cpu_a"] in CPOS && CPOS[kv["cpu_a"]] != kv["pos_a"]) || (kv["cpu_b"] in CPOS &&
			CPOS[kv["cpu_b"]] != kv["pos_b"])) {
			bad(s ": CPU " kv["cpu_a"] " or " kv["cpu_b"] " at two positions (" REC[s, i] ")"); bad1 = 1
		}
		CPOS[kv["cpu_a"]] = kv["pos_a"]; CPOS[kv["cpu_b"]] = kv["pos_b"]
	}
	return bad1 ? -1 : NCP
}
# Every pair's class is its relation in the snapshot, both CPUs allowed, none with itself.
function cp_classes(s,    i, x, y, nb) {
	nb = 0
	for (i = 1; i <= NCP; i++) {
		x = CPA[i]; y = CPB[i]
		if (!(x in E) || !(y in E)) { bad(s ": pair " x "/" y " outside the allowed set " EL); nb++;
			continue }
		if (x == y) { bad(s ": pair " x "/" y " is a CPU with itself"); nb++; continue }
		# "unknown": the guest's sysfs has no cache topology, so llc and cross-llc cannot be told
		if (CCL[i] == "unknown" && (pclass(x, y) == "llc" || pclass(x, y) == "cross-llc")) continue
		if (CCL[i] != pclass(x, y)) {
			bad(s ": pair " x "/" y " is class " CCL[i] ", the snapshot says " pclass(x, y)); nb++ }
	}
	return nb
}
# A group (core, LLC, node: cpu -> label in G) holds consecutive positions.
function cp_contig(s, G, what,    c, g, lo, hi, n, nb) {
	split("", lo); split("", hi); split("", n); nb = 0
	for (c in CPOS) {
		g = (c in G) ? G[c] : "-"
		if (!(g in n) || CPOS[c] + 0 < lo[g]) lo[g] = CPOS[c] + 0
		if (!(g in n) || CPOS[c] + 0 > hi[g]) hi[g] = CPOS[c] + 0
		n[g]++
	}
	for (g in n) if (hi[g] - lo[g] + 1 != n[g]) { bad(s ": the CPUs of " what " " g \
		" are not next to each other in the order (positions " lo[g] "-" hi[g] " for " n[g] " CPUs)");
		nb++ }
	return nb
}
# The matrix: every ordered pair of allowed CPUs once, in topology order.
function check_cp_matrix(s,    n, x, y, c, p, q, nb, seen) {
	if (!(s in STEPRC)) { bad(s ": not run"); return }
	if (STEPRC[s] != 0) { bad(s ": exit " STEPRC[s] ": " LASTERR[s]); return }
	if ((n = cp_read(s)) < 0) return
	nb = 0
	for (x in E) for (y in E) if (x != y && !((x SUBSEP y) in CPK)) {
		bad(s ": no record for pair " x "/" y); nb++ }
	if (n != NE * (NE - 1)) {
		bad(s ": " n " ordered pairs, want " NE * (NE - 1) " (" NE " allowed CPUs)"); nb++ }
	for (x in CPK) { split(x, q, SUBSEP); if (!((x SUBSEP "line_rt_ns") in CPM)) {
		bad(s ": pair " q[1] "/" q[2] ": no line_rt_ns"); nb++ } }
	split("", seen)
	for (c in CPOS) {
		p = CPOS[c]
		if (p !~ /^[0-9]+$/ || p + 0 >= NE || (p in seen)) {
			bad(s ": CPU " c " at position " p ": not one of 0-" NE - 1 " or taken twice"); nb++ }
		seen[p] = 1
	}
	nb += cp_classes(s)
	nb += cp_contig(s, SIBL, "core") + cp_contig(s, LLCL, "LLC") + cp_contig(s, NODE, "node")
	# Threads of a core by CPU number.
	for (x in CPOS) for (y in CPOS) if (x + 0 < y + 0 && ((x SUBSEP y) in SIB) &&
		CPOS[x] + 0 > CPOS[y] + 0) { bad(s ": sibling " x " after " y " in the order"); nb++ }
	if (!nb) ok(s ": " n " ordered pairs = " NE " x " NE - 1 " allowed CPUs, each with line_rt_ns; " \
		"positions in topology order (cores, LLCs, nodes contiguous); classes as the snapshot says")
	CPMAT = n " pairs"
}
# The classes sample: one pair and its reverse per class the allowed CPUs offer.
function check_cp_classes(s,    n, i, c, want, got, x, y, m, nm, M3, nb, W, G) {
	if (!(s in STEPRC)) { bad(s ": not run"); return }
	if (STEPRC[s] != 0) { bad(s ": exit " STEPRC[s] ": " LASTERR[s]); return }
	if ((n = cp_read(s)) < 0) return
	nb = cp_classes(s)
	split("", W); split("", G)
	for (x in E) for (y in E) if (x != y) W[pclass(x + 0, y + 0)] = 1
	for (i = 1; i <= NCP; i++) {
		G[CCL[i]]++
		if (!((CPB[i] SUBSEP CPA[i]) in CPK)) { bad(s ": pair " CPA[i] "/" CPB[i] " without its reverse");
			nb++ }
		nm = split("line_rt_ns futex_rt_us pipe_rt_us", M3, " ")
		for (m = 1; m <= nm; m++) if (!((CPA[i] SUBSEP CPB[i] SUBSEP M3[m]) in CPM)) {
			bad(s ": pair " CPA[i] "/" CPB[i] ": no " M3[m]); nb++ }
	}
	want = ""; got = ""
	split("smt llc cross-llc cross-node", PC, " ")
	for (i = 1; i <= 4; i++) {
		c = PC[i]
		if (c in W) want = want " " c
		if (c in G) got = got " " c (G[c] != 2 ? "(" G[c] " pairs)" : "")
	}
	if (got != want) {
		bad(s ": classes" got ", the allowed CPUs offer" want " (one pair and its reverse each)"); nb++ }
	if (!nb) ok(s ": classes" got ": one pair and its reverse each, with line, futex and pipe " \
		"round trips; classes as the snapshot says")
	CPCLS = got
}
# --idle poll holds /dev/cpu_dma_latency where a cpuidle driver reads it: records say
# idle=poll; without a driver (the snapshot's current_driver none) exit 4 naming it, and
# without the device a clean skip.
function check_cp_poll(s,    n, t) {
	if (!(s in STEPRC)) { bad(s ": not run"); return }
	if (CPUIDLE == "" || CPUIDLE == "none") {
		if (STEPRC[s] == 4 && LASTERR[s] ~ /no cpuidle driver/) {
			ok(s ": no cpuidle driver: skipped with the reason: " LASTERR[s]); CPPOLL = "skipped" }
		else bad(s ": cpuidle driver none, want exit 4 naming the missing driver, got exit " STEPRC[s] \
			": " LASTERR[s])
		return
	}
	if (STEPRC[s] == 4 && PMQOS == "no" && LASTERR[s] ~ /cpu_dma_latency/) {
		ok(s ": skipped, no /dev/cpu_dma_latency: " LASTERR[s]); CPPOLL = "skipped"; return }
	if (STEPRC[s] != 0) { bad(s ": cpuidle driver " CPUIDLE ", exit " STEPRC[s] ": " LASTERR[s] \
		" (/dev/cpu_dma_latency " (PMQOS == "yes" ? "present" : "absent") ")"); return }
	if ((n = cp_read(s)) <= 0) { if (n == 0) bad(s ": no records"); return }
	if (CPIDLE != " poll") bad(s ": records not all idle=poll; idle values seen:" CPIDLE)
	else { ok(s ": " n " pairs measured, every record carries idle=poll"); CPPOLL = "ran" }
}
# --idle haltpoll:NS: only under the haltpoll cpuidle driver; elsewhere exit 4 with the reason.
function check_cp_haltpoll(s,    n) {
	if (!(s in STEPRC)) { bad(s ": not run"); return }
	if (CPUIDLE != "haltpoll") {
		if (STEPRC[s] == 4 && LASTERR[s] ~ /haltpoll/) { ok(s ": cpuidle driver " (CPUIDLE == "" ? \
			"none" : CPUIDLE) ": skipped with the reason: " LASTERR[s]); CPHALT = "skipped" }
		else bad(s ": cpuidle driver " (CPUIDLE == "" ? "none" : CPUIDLE) \
			", want exit 4 naming haltpoll, got exit " STEPRC[s] ": " LASTERR[s])
		return
	}
	if (STEPRC[s] != 0) { bad(s ": haltpoll driver present, exit " STEPRC[s] ": " LASTERR[s]); return }
	if ((n = cp_read(s)) <= 0) { if (n == 0) bad(s ": no records"); return }
	if (CPIDLE !~ /^ haltpoll:[0-9]+$/) bad(s ": records not all idle=haltpoll:NS; idle values seen:" \
		CPIDLE)
	else { ok(s ": haltpoll driver: " n " pairs measured with" CPIDLE); CPHALT = "ran" }
}
