# SPDX-License-Identifier: GPL-2.0
# Part of the host-side topology checker (check.awk has the overview, the input
# kinds and the rules; check-run.sh passes all the parts with -f): the relations
# of CPU pairs from the snapshot, cputestfs's resolved placements, skips and
# pinned behaviour, and sqrtio's completion maps and reader/worker placement.

# ---- relations, from the snapshot only ----
function rel(p, x, y) {
	if (p == "same") return x == y
	if (x == y) return 0
	if (p == "other") return 1
	if (p == "smt") return ((x SUBSEP y) in SIB) && ((y SUBSEP x) in SIB)
	if (p == "llc") return ((x SUBSEP y) in LLCM) && ((y SUBSEP x) in LLCM) && !((x SUBSEP y) in SIB)
	if (p == "cross-llc") return (x in HASLLC) && (y in HASLLC) && !((x SUBSEP y) in LLCM) &&
		!((y SUBSEP x) in LLCM)
	if (p == "cross-node") return (x in NODE) && (y in NODE) && NODE[x] != NODE[y]
	return 0
}
function why(p, x, y) {
	if (p == "same") return "one CPU"
	if (p == "other") return "two different CPUs"
	if (p == "smt") return "siblings of core " SIBL[x]
	if (p == "llc") return "different cores (" SIBL[x] " | " SIBL[y] ") of LLC " LLCL[x]
	if (p == "cross-llc") return "LLCs " LLCL[x] " | " LLCL[y]
	if (p == "cross-node") return "nodes " NODE[x] " | " NODE[y]
	return "?"
}
# Is there a pair of allowed CPUs in relation p? Sets EXA, EXB to one.
function possible(p,    x, y) {
	if (p == "none") return NE >= 1
	for (x in E)
		for (y in E)
			if (rel(p, x + 0, y + 0)) { EXA = x; EXB = y; return 1 }
	return 0
}
# Two pairs on four distinct allowed CPUs in relation p?
function disjoint2(p,    x, y, u, v) {
	for (x in E) for (y in E) {
		if (!rel(p, x + 0, y + 0)) continue
		for (u in E) {
			if (u == x || u == y) continue
			for (v in E)
				if (v != x && v != y && v != u && rel(p, u + 0, v + 0)) return x "/" y " and " u "/" v
		}
	}
	return ""
}
function why_not(p) {
	if (p == "smt") return "no two allowed CPUs are SMT siblings"
	if (p == "llc") return "no two allowed CPUs of different cores share an LLC"
	if (p == "cross-llc") return "all allowed CPUs share one LLC"
	if (p == "cross-node") return "all allowed CPUs are on one node"
	if (p == "other" || p == "same") return "too few allowed CPUs"
	return "?"
}
function inE(set, what,    c, outside) {
	outside = ""
	for (c in set)
		if (!(c in E)) outside = outside " " c (c in ON ? "" : " (offline)")
	if (outside != "") { bad(what ": CPU" outside " outside the allowed, online set " EL); return 0 }
	return 1
}

# One resolved placement: P with n clients on client list CL, daemon list DL.
# Returns a short text for the table.
function check_pl(src, p, n, CL, DL, cfgtext,    A, B, na, nb, a, b, a1, a2, b1, b2, i, k, inter, \
	d) {
	if (p == "none") {
		# Unpinned: "any", or with --cpus the list it allows (NONE_WANT).
		if (NONE_WANT != "" ? (CL == NONE_WANT && DL == NONE_WANT) : ((CL == "any" || CL == EL) &&
			(DL == "any" || DL == EL))) {
			ok(src " none: unpinned (client " CL ", daemon " DL ")")
			return "unpinned"
		}
		bad(src " none: expected unpinned (any), got client " CL " daemon " DL)
		return "BAD " CL "/" DL
	}
	na = expand(CL, A); nb = expand(DL, B)
	if (na != n || nb != n) {
		bad(src " " p ": " n " client(s) need " n " distinct client and daemon CPUs, got client " CL \
			", daemon " DL)
		return "BAD " CL "/" DL
	}
	if (!inE(A, src " " p " client_cpu=" CL) || !inE(B, src " " p " daemon_cpu=" DL))
		return "BAD " CL "/" DL
	if (n == 1) {
		for (a in A) ; for (b in B) ;
		if (rel(p, a + 0, b + 0)) {
			ok(src " " p ": client " a ", daemon " b ": " why(p, a + 0, b + 0))
			return a "/" b
		}
		bad(src " " p ": client " a ", daemon " b " is not " p " in the guest's sysfs (siblings " \
			SIBL[a] "|" SIBL[b] ", LLC " LLCL[a] "|" LLCL[b] ", node " NODE[a] "|" NODE[b] ")")
		return "BAD " a "/" b
	}
	# n == 2: the lists are sets; some pairing must hold both pairs.
	i = 0; for (a in A) { i++; if (i == 1) a1 = a; else a2 = a }
	i = 0; for (b in B) { i++; if (i == 1) b1 = b; else b2 = b }
	if (!((rel(p, a1 + 0, b1 + 0) && rel(p, a2 + 0, b2 + 0)) || (rel(p, a1 + 0, b2 + 0) &&
		rel(p, a2 + 0, b1 + 0)))) {
		bad(src " " p ": clients " CL " and daemons " DL " cannot be paired so that both pairs are " p)
		return "BAD " CL "/" DL
	}
	inter = 0
	for (a in A) if (a in B) inter++
	if (p != "same" && inter) {
		d = disjoint2(p)
		if (d != "") {
			bad(src " " p ": clients " CL " and daemons " DL \
				" share CPUs although four distinct allowed CPUs hold two " p " pairs (" d \
				"; lib/sys/topo.h: 2n distinct CPUs first)")
			return "BAD " CL "/" DL
		}
		ok(src " " p ": clients " CL ", daemons " DL " pair up as " p \
			" (sharing CPUs: no four distinct allowed CPUs hold two " p " pairs)")
		return CL "/" DL
	}
	ok(src " " p ": clients " CL ", daemons " DL " pair up as " p)
	return CL "/" DL
}

# Skip lines "cputestfs: skipped: P: reason" of a step -> SKIPR[step, P]
function skips(step,    i, l, r, p) {
	for (i = 1; i <= NERR[step]; i++) {
		l = ERR[step, i]
		if (l ~ /^cputestfs: skipped: /) {
			r = substr(l, length("cputestfs: skipped: ") + 1)
			p = r; sub(/:.*/, "", p)
			SKIPR[step, p] = r
		}
	}
}

# cputestfs records of one step (or the harness's raw.csv) -> PLC/PLD[src, P] client and daemon
# lists
function collect_cfs(src, line,    f, nf, kv) {
	nf = csvsplit(line, f)
	if (f[1] == "bench") return
	if (nf != 6) { bad(src ": malformed record (" nf " fields, RFC 4180 quoting?): " line); return }
	if (f[2] ~ /,/ && line !~ /"/) bad(src ": a config with a comma is not quoted: " line)
	if (f[1] != "cputestfs") return
	cfgsplit(f[2], kv)
	# The harness plan sweeps daemon modes too: each mode is its own source.
	if (src == "harness") { src = "harness daemon=" kv["daemon"]; HDAEMON[kv["daemon"]] = 1 }
	if (!("placement" in kv) || !("client_cpu" in kv) || !("daemon_cpu" in kv)) {
		bad(src ": cputestfs record without placement/client_cpu/daemon_cpu: " f[2]); return
	}
	PLC[src, kv["placement"]] = kv["client_cpu"]
	PLD[src, kv["placement"]] = kv["daemon_cpu"]
	PLN[src, kv["placement"]] = kv["clients"] + 0
	if (f[4] ~ /^kernel_/) KMET[src] = KMET[src] " " f[4]
	if (f[4] == "stat_per_s") HASSTAT[src, kv["placement"]] = 1
	if (f[4] == "same_cpu_pct") SCP[src, kv["placement"]] = f[5]
}

# Behaviour, not labels: with one client, the daemon (pinned to the daemon CPU) serves on the
# client's CPU for every request under "same", for none under a two-CPU placement.
function pinned_check(src, p,    v) {
	if (p == "none") return
	if (!((src SUBSEP p) in SCP)) { bad(src " " p ": no same_cpu_pct record"); return }
	v = SCP[src, p] + 0
	# Pinning that did not hold shows as tens of percent. A call or two off at the
	# window's edges is the counters being read apart (FINDINGS), visible in TCG's
	# few hundred calls per window: noted, not failed.
	if (p == "same" ? v < 99 : v > 1)
		bad(src " " p ": the daemon served " v "% of the requests on the client's CPU; pinned " (p == \
			"same" ? "to one CPU that must be 100" : "to two CPUs it must be 0"))
	else {
		PINOK[src]++
		if (p == "same" ? v < 100 : v > 0) note(src " " p ": same_cpu_pct " v ", not " (p == "same" ? \
			100 : 0) ": a call or two counted across the window's edge (counters read apart)")
	}
}
function placement_table(step, n, label,    i, p, t) {
	skips(step)
	if (!(step in STEPRC)) { bad(step ": did not run (no exit code)"); return }
	if (STEPRC[step] != 0) bad(step ": exit " STEPRC[step] " (want 0): " LASTERR[step])
	for (i = 1; i <= NREC[step]; i++) collect_cfs(step, REC[step, i])
	for (i = 1; i <= NPL; i++) {
		p = PL[i]
		can = possible(p)
		if ((step SUBSEP p) in PLC) {
			t = check_pl(step, p, n, PLC[step, p], PLD[step, p])
			if (n == 1) pinned_check(step, p)
			if (!((step SUBSEP p) in HASSTAT)) bad(step " " p ": no stat_per_s record")
			if (!can) bad(step " " p ": ran although the snapshot says it cannot (" why_not(p) ")")
		} else if ((step SUBSEP p) in SKIPR) {
			t = "skipped"
			if (!(p in SKIPNOTE)) SKIPNOTE[p] = SKIPR[step, p]
			if (can) bad(step " " p ": skipped (" SKIPR[step, p] ") but the allowed CPUs offer it, e.g. " \
				EXA "/" EXB " (" why(p, EXA + 0, EXB + 0) ")")
			else ok(step " " p ": skipped with the machine's reason (" SKIPR[step, p] \
				"); snapshot agrees: " why_not(p))
		} else {
			t = "MISSING"
			bad(step " " p ": neither records nor a skip reason")
		}
		TAB[label, p] = t
	}
}

function kv_of(step, key,    i, l) {
	for (i = 1; i <= NREC[step]; i++) {
		l = REC[step, i]
		if (index(l, key "=") == 1) return substr(l, length(key) + 2)
	}
	return "\001"
}

# Which CPUs complete a read submitted on CPU c of DISK: its blk-mq queue -> that
# queue's virtio IRQ -> the IRQ's effective affinity. -> CMP[disk, c] (a list)
function completion_map(disk,    c, q, irq, name, n, S, ok1) {
	if (disk in CMPDONE) return CMPDONE[disk]
	ok1 = 1
	for (c in E) {
		q = ""
		for (n = 0; (disk SUBSEP n) in MQ; n++) {
			expand(MQ[disk, n], S)
			if (c in S) { q = n; break }
		}
		if (q == "") { bad(disk ": CPU " c " is in no blk-mq queue's cpu_list"); ok1 = 0; continue }
		name = VIRTIO[disk] "-req." q
		if (!(name in IRQOF)) { bad(disk ": no IRQ named " name " in /proc/interrupts"); ok1 = 0;
			continue }
		irq = IRQOF[name]
		CMP[disk, c] = EFF[irq]
		IRQS[disk, irq] = 1
	}
	CMPDONE[disk] = ok1
	return ok1
}
function derive(disk, LOC, REM, UNI,    c, S, i) {
	split("", LOC); split("", REM); split("", UNI)
	if (!(disk in VIRTIO)) { bad(disk ": no snapshot of its queues"); return 0 }
	if (!completion_map(disk)) return 0
	for (c in E) {
		expand(CMP[disk, c], S)
		if (c in S) LOC[c] = 1; else REM[c] = 1
		for (i in S) UNI[i] = 1
	}
	return 1
}
function check_sqrtio(disk, dstep, rstep, label,    c, S, LOC, REM, UNI, got, want, i, f, kv, nf, \
	key, pt, can, r, l, rq, seen, G, W, irql) {
	if (!derive(disk, LOC, REM, UNI)) return
	irql = ""
	for (i in IRQS) { split(i, f, SUBSEP); if (f[1] == disk) irql = irql " " f[2] }
	# Discovery (--discover) against the map.
	if (STEPRC[dstep] != 0) bad(dstep ": exit " STEPRC[dstep] ": " LASTERR[dstep])
	else {
		seen = 0; split("", MIS); nmis = 0; ex = ""
		for (c = 0; c <= MAXCPU; c++) {
			if (!(c in E)) continue
			got = kv_of(dstep, "cpu" c "_completes_on")
			if (got == "\001") got = "(not reported)"
			expand(got, G); expand(CMP[disk, c], W)
			if (fmt(G) != fmt(W) || got == "(not reported)") {
				MIS[c] = 1
				if (nmis++ < 3) ex = ex "; CPU " c ": " (got == "" ? "(none)" : got) \
					" (its queue's IRQ fires on " CMP[disk, c] ")"
			} else seen++
		}
		if (nmis) bad(dstep ": " nmis " CPUs (" fmt(MIS) \
			") are said to complete their reads elsewhere than their queue's IRQ fires" ex (nmis > 3 ? \
			"; ..." : ""))
		if (seen == NE) ok(dstep ": the completing CPU of each of the " NE \
			" allowed CPUs matches its queue's IRQ affinity")
		got = kv_of(dstep, "local_cpus"); expand(got, G)
		if (fmt(G) == fmt(LOC)) ok(dstep ": local CPUs " (got == "" ? "(none)" : got) " as derived")
		else bad(dstep ": local_cpus=" got ", derived " fmt(LOC))
		got = kv_of(dstep, "remote_cpus"); expand(got, G)
		if (fmt(G) == fmt(REM)) ok(dstep ": remote CPUs " (got == "" ? "(none)" : got) " as derived")
		else bad(dstep ": remote_cpus=" got ", derived " fmt(REM))
		gsub(/ /, ",", irql)
		got = kv_of(dstep, "irqs"); expand(got, G); expand(substr(irql, 2), W)
		if (fmt(G) == fmt(W)) ok(dstep ": IRQs " got " are the queues the allowed CPUs use")
		else bad(dstep ": irqs=" got ", the allowed CPUs use the queues of IRQs " fmt(W))
	}
	# The measured points.
	r = rstep
	if (!(r in STEPRC)) { bad(r ": did not run"); return }
	if (STEPRC[r] != 0 && STEPRC[r] != 4) bad(r ": exit " STEPRC[r] ": " LASTERR[r])
	for (i = 1; i <= NERR[r]; i++) {
		l = ERR[r, i]
		if (l ~ /^sqrtio: rq=[0-9] local=[01] skipped: /) {
			pt = l; sub(/^sqrtio: /, "", pt); sub(/ skipped: .*/, "", pt)
			SQSKIP[r, pt] = substr(l, index(l, " skipped: ") + 10)
		}
	}
	for (i = 1; i <= NREC[r]; i++) {
		nf = csvsplit(REC[r, i], f)
		if (f[1] != "sqrtio") continue
		if (nf != 6) { bad(r ": malformed record: " REC[r, i]); continue }
		cfgsplit(f[2], kv)
		pt = "rq=" kv["rq"] " local=" kv["local"]
		if ((r SUBSEP pt) in SQPT) continue
		SQPT[r, pt] = 1
		SQRES[r, pt] = (check_sq_point(r, pt, kv, LOC, REM, UNI) ? "" : "BAD: ") "readers " \
			kv["io_cpus"] ", sqrt " kv["sqrt_cpus"] ", IRQ CPUs " kv["irq_cpus"]
	}
	for (rq = 0; rq <= 2; rq++) for (l = 0; l <= 1; l++) {
		pt = "rq=" rq " local=" l
		if (index(SQWANT[r], " " rq " ") == 0) continue
		can = l ? (CNT(LOC) > 0) : (CNT(REM) > 0)
		if ((r SUBSEP pt) in SQPT) {
			SQT[label, pt] = SQRES[r, pt]
			if (!can) bad(r " " pt ": ran although " (l ? "no allowed CPU completes its own reads" : \
				"every allowed CPU completes its own reads"))
		} else if ((r SUBSEP pt) in SQSKIP) {
			SQT[label, pt] = "skipped: " SQSKIP[r, pt]
			if (can && rq == 1 && !l && sq_llc_inert(SQSKIP[r, pt]))
				ok(r " " pt ": skipped, rq_affinity 1 inert: the snapshot's caches say the " \
				   "readers share a last-level cache with the completing CPU")
			else if (can) bad(r " " pt ": skipped (" SQSKIP[r, pt] ") but the derived map offers it")
			else ok(r " " pt ": skipped with the machine's reason (" SQSKIP[r, pt] ")")
		} else {
			SQT[label, pt] = "MISSING"
			bad(r " " pt ": neither records nor a skip reason")
		}
	}
}
# rq_affinity 1 completes on the IRQ's CPU when the reader shares its last-level cache
# (blk_mq_complete_need_ipi): sqrtio skips such a point, naming the CPUs. True when every
# reader and completing CPU it names share an LLC in the guest's own snapshot (LLCM).
function sq_llc_inert(s,    p, q, a, b, A, B, x, y) {
	p = "readers on CPU "; q = " share a last-level cache with the completing CPU "
	if (index(s, p) == 0 || index(s, q) == 0) return 0
	a = substr(s, index(s, p) + length(p)); sub(/ .*/, "", a)
	b = substr(s, index(s, q) + length(q)); sub(/[^0-9,-].*/, "", b)
	if (expand(a, A) <= 0 || expand(b, B) <= 0) return 0
	for (x in A) for (y in B) if (!((x + 0, y + 0) in LLCM)) return 0
	return 1
}
function CNT(set,    k, n) { n = 0; for (k in set) n++; return n }
function check_sq_point(r, pt, kv, LOC, REM, UNI,    IO, SQ, c, good, want_procs, want_io) {
	expand(kv["io_cpus"], IO); expand(kv["sqrt_cpus"], SQ)
	if (!inE(IO, r " " pt " io_cpus=" kv["io_cpus"]) ||
		!inE(SQ, r " " pt " sqrt_cpus=" kv["sqrt_cpus"])) return
	good = 1
	for (c in IO) {
		if (kv["local"] == 1 && !(c in LOC)) {
			bad(r " " pt ": reader on CPU " c ", whose reads complete on " CMP[DISKOF[r], c]); good = 0 }
		if (kv["local"] == 0 && !(c in REM)) {
			bad(r " " pt ": reader on CPU " c ", which completes its own reads (local=0 wants it off)");
			good = 0 }
	}
	if (kv["irq_cpus"] != fmt(UNI)) { bad(r " " pt ": irq_cpus=" kv["irq_cpus"] ", derived " fmt(UNI));
		good = 0 }
	# the default: 2 of each with 4 or more allowed CPUs, else 1; readers also no more
	# than the local and the remote CPUs each, when both exist
	want_procs = NE >= 4 ? 2 : 1
	want_io = want_procs
	if (CNT(LOC) > 0 && CNT(REM) > 0) {
		if (CNT(LOC) < want_io) want_io = CNT(LOC)
		if (CNT(REM) < want_io) want_io = CNT(REM)
	}
	if (kv["io_procs"] != want_io || kv["sqrt_procs"] != want_procs) {
		bad(r " " pt ": io_procs=" kv["io_procs"] " sqrt_procs=" kv["sqrt_procs"] ", the default is " \
			want_io " and " want_procs " with " NE " allowed CPUs, " CNT(LOC) " local and " CNT(REM) \
			" remote"); good = 0
	}
	if (good) ok(r " " pt ": readers on " kv["io_cpus"] " (" (kv["local"] == 1 ? \
		"complete their own reads" : "reads complete elsewhere") "), sqrt on " kv["sqrt_cpus"] \
		", IRQ CPUs " kv["irq_cpus"])
	return good
}
