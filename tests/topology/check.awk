# Host-side checker of one emulated-topology result directory (POSIX awk: mawk,
# gawk and busybox awk). check-run.sh feeds it, each file preceded by kind=...:
#   facts    the guest's topology, flattened from its sysfs snapshot by check-run.sh:
#            online LIST | sib CPU LIST | cache CPU LEVEL TYPE LIST | node N LIST |
#            mq DISK QUEUE LIST | virtio DISK DEV | irq N NAME | eff N LIST |
#            cpuset LIST | offline_req CPU | allowed_seen LIST | step NAME RC |
#            harness_rc RC | restore_rc RC | desc TEXT
#   csv      a benchmark's records (step=NAME): bench,config,rep,metric,value,unit
#   err      its stderr (step=NAME); kv: key=value lines (step=NAME)
#   hraw hruns hfail hmachine   the harness run directory's files
# The topology the records are checked against comes from those facts alone,
# never from the project's resolver (lib/sys/topo.c), so a resolver bug shows.
# Prints one line per check ("ok", "FAIL", "note") and the placement table;
# exits 1 when a check failed.

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

# ---- relations, from the snapshot only ----
function rel(p, x, y) {
	if (p == "same") return x == y
	if (x == y) return 0
	if (p == "other") return 1
	if (p == "smt") return ((x SUBSEP y) in SIB) && ((y SUBSEP x) in SIB)
	if (p == "llc") return ((x SUBSEP y) in LLCM) && ((y SUBSEP x) in LLCM) && !((x SUBSEP y) in SIB)
	if (p == "cross-llc") return (x in HASLLC) && (y in HASLLC) && !((x SUBSEP y) in LLCM) && !((y SUBSEP x) in LLCM)
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
function check_pl(src, p, n, CL, DL, cfgtext,    A, B, na, nb, a, b, a1, a2, b1, b2, i, k, inter, d) {
	if (p == "none") {
		# Unpinned: "any", or with --cpus the list it allows (NONE_WANT).
		if (NONE_WANT != "" ? (CL == NONE_WANT && DL == NONE_WANT) : ((CL == "any" || CL == EL) && (DL == "any" || DL == EL))) {
			ok(src " none: unpinned (client " CL ", daemon " DL ")")
			return "unpinned"
		}
		bad(src " none: expected unpinned (any), got client " CL " daemon " DL)
		return "BAD " CL "/" DL
	}
	na = expand(CL, A); nb = expand(DL, B)
	if (na != n || nb != n) {
		bad(src " " p ": " n " client(s) need " n " distinct client and daemon CPUs, got client " CL ", daemon " DL)
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
		bad(src " " p ": client " a ", daemon " b " is not " p " in the guest's sysfs (siblings " SIBL[a] "|" SIBL[b] ", LLC " LLCL[a] "|" LLCL[b] ", node " NODE[a] "|" NODE[b] ")")
		return "BAD " a "/" b
	}
	# n == 2: the lists are sets; some pairing must hold both pairs.
	i = 0; for (a in A) { i++; if (i == 1) a1 = a; else a2 = a }
	i = 0; for (b in B) { i++; if (i == 1) b1 = b; else b2 = b }
	if (!((rel(p, a1 + 0, b1 + 0) && rel(p, a2 + 0, b2 + 0)) || (rel(p, a1 + 0, b2 + 0) && rel(p, a2 + 0, b1 + 0)))) {
		bad(src " " p ": clients " CL " and daemons " DL " cannot be paired so that both pairs are " p)
		return "BAD " CL "/" DL
	}
	inter = 0
	for (a in A) if (a in B) inter++
	if (p != "same" && inter) {
		d = disjoint2(p)
		if (d != "") {
			bad(src " " p ": clients " CL " and daemons " DL " share CPUs although four distinct allowed CPUs hold two " p " pairs (" d "; lib/sys/topo.h: 2n distinct CPUs first)")
			return "BAD " CL "/" DL
		}
		ok(src " " p ": clients " CL ", daemons " DL " pair up as " p " (sharing CPUs: no four distinct allowed CPUs hold two " p " pairs)")
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

# cputestfs records of one step (or the harness's raw.csv) -> PLC/PLD[src, P] client and daemon lists
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
		bad(src " " p ": the daemon served " v "% of the requests on the client's CPU; pinned " (p == "same" ? "to one CPU that must be 100" : "to two CPUs it must be 0"))
	else {
		PINOK[src]++
		if (p == "same" ? v < 100 : v > 0) note(src " " p ": same_cpu_pct " v ", not " (p == "same" ? 100 : 0) ": a call or two counted across the window's edge (counters read apart)")
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
			if (can) bad(step " " p ": skipped (" SKIPR[step, p] ") but the allowed CPUs offer it, e.g. " EXA "/" EXB " (" why(p, EXA + 0, EXB + 0) ")")
			else ok(step " " p ": skipped with the machine's reason (" SKIPR[step, p] "); snapshot agrees: " why_not(p))
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
		if (!(name in IRQOF)) { bad(disk ": no IRQ named " name " in /proc/interrupts"); ok1 = 0; continue }
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
function check_sqrtio(disk, dstep, rstep, label,    c, S, LOC, REM, UNI, got, want, i, f, kv, nf, key, pt, can, r, l, rq, seen, G, W, irql) {
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
				if (nmis++ < 3) ex = ex "; CPU " c ": " (got == "" ? "(none)" : got) " (its queue's IRQ fires on " CMP[disk, c] ")"
			} else seen++
		}
		if (nmis) bad(dstep ": " nmis " CPUs (" fmt(MIS) ") are said to complete their reads elsewhere than their queue's IRQ fires" ex (nmis > 3 ? "; ..." : ""))
		if (seen == NE) ok(dstep ": the completing CPU of each of the " NE " allowed CPUs matches its queue's IRQ affinity")
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
		SQRES[r, pt] = (check_sq_point(r, pt, kv, LOC, REM, UNI) ? "" : "BAD: ") "readers " kv["io_cpus"] ", sqrt " kv["sqrt_cpus"] ", IRQ CPUs " kv["irq_cpus"]
	}
	for (rq = 0; rq <= 2; rq++) for (l = 0; l <= 1; l++) {
		pt = "rq=" rq " local=" l
		if (index(SQWANT[r], " " rq " ") == 0) continue
		can = l ? (CNT(LOC) > 0) : (CNT(REM) > 0)
		if ((r SUBSEP pt) in SQPT) {
			SQT[label, pt] = SQRES[r, pt]
			if (!can) bad(r " " pt ": ran although " (l ? "no allowed CPU completes its own reads" : "every allowed CPU completes its own reads"))
		} else if ((r SUBSEP pt) in SQSKIP) {
			SQT[label, pt] = "skipped: " SQSKIP[r, pt]
			if (can) bad(r " " pt ": skipped (" SQSKIP[r, pt] ") but the derived map offers it")
			else ok(r " " pt ": skipped with the machine's reason (" SQSKIP[r, pt] ")")
		} else {
			SQT[label, pt] = "MISSING"
			bad(r " " pt ": neither records nor a skip reason")
		}
	}
}
function CNT(set,    k, n) { n = 0; for (k in set) n++; return n }
function check_sq_point(r, pt, kv, LOC, REM, UNI,    IO, SQ, c, good, want_procs, want_io) {
	expand(kv["io_cpus"], IO); expand(kv["sqrt_cpus"], SQ)
	if (!inE(IO, r " " pt " io_cpus=" kv["io_cpus"]) || !inE(SQ, r " " pt " sqrt_cpus=" kv["sqrt_cpus"])) return
	good = 1
	for (c in IO) {
		if (kv["local"] == 1 && !(c in LOC)) { bad(r " " pt ": reader on CPU " c ", whose reads complete on " CMP[DISKOF[r], c]); good = 0 }
		if (kv["local"] == 0 && !(c in REM)) { bad(r " " pt ": reader on CPU " c ", which completes its own reads (local=0 wants it off)"); good = 0 }
	}
	if (kv["irq_cpus"] != fmt(UNI)) { bad(r " " pt ": irq_cpus=" kv["irq_cpus"] ", derived " fmt(UNI)); good = 0 }
	# the default: 2 of each with 4 or more allowed CPUs, else 1; readers also no more
	# than the local and the remote CPUs each, when both exist
	want_procs = NE >= 4 ? 2 : 1
	want_io = want_procs
	if (CNT(LOC) > 0 && CNT(REM) > 0) {
		if (CNT(LOC) < want_io) want_io = CNT(LOC)
		if (CNT(REM) < want_io) want_io = CNT(REM)
	}
	if (kv["io_procs"] != want_io || kv["sqrt_procs"] != want_procs) {
		bad(r " " pt ": io_procs=" kv["io_procs"] " sqrt_procs=" kv["sqrt_procs"] ", the default is " want_io " and " want_procs " with " NE " allowed CPUs, " CNT(LOC) " local and " CNT(REM) " remote"); good = 0
	}
	if (good) ok(r " " pt ": readers on " kv["io_cpus"] " (" (kv["local"] == 1 ? "complete their own reads" : "reads complete elsewhere") "), sqrt on " kv["sqrt_cpus"] ", IRQ CPUs " kv["irq_cpus"])
	return good
}

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
		k = kv["cpu_a"] SUBSEP kv["cpu_b"]
		if (!(k in CPK)) { CPK[k] = ++NCP; CPA[NCP] = kv["cpu_a"] + 0; CPB[NCP] = kv["cpu_b"] + 0; CCL[NCP] = kv["class"] }
		CPM[k, f[4]] = 1
		if ((kv["cpu_a"] in CPOS && CPOS[kv["cpu_a"]] != kv["pos_a"]) || (kv["cpu_b"] in CPOS && CPOS[kv["cpu_b"]] != kv["pos_b"])) {
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
		if (!(x in E) || !(y in E)) { bad(s ": pair " x "/" y " outside the allowed set " EL); nb++; continue }
		if (x == y) { bad(s ": pair " x "/" y " is a CPU with itself"); nb++; continue }
		if (CCL[i] != pclass(x, y)) { bad(s ": pair " x "/" y " is class " CCL[i] ", the snapshot says " pclass(x, y)); nb++ }
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
	for (g in n) if (hi[g] - lo[g] + 1 != n[g]) { bad(s ": the CPUs of " what " " g " are not next to each other in the order (positions " lo[g] "-" hi[g] " for " n[g] " CPUs)"); nb++ }
	return nb
}
# The matrix: every ordered pair of allowed CPUs once, in topology order.
function check_cp_matrix(s,    n, x, y, c, p, q, nb, seen) {
	if (!(s in STEPRC)) { bad(s ": not run"); return }
	if (STEPRC[s] != 0) { bad(s ": exit " STEPRC[s] ": " LASTERR[s]); return }
	if ((n = cp_read(s)) < 0) return
	nb = 0
	for (x in E) for (y in E) if (x != y && !((x SUBSEP y) in CPK)) { bad(s ": no record for pair " x "/" y); nb++ }
	if (n != NE * (NE - 1)) { bad(s ": " n " ordered pairs, want " NE * (NE - 1) " (" NE " allowed CPUs)"); nb++ }
	for (x in CPK) { split(x, q, SUBSEP); if (!((x SUBSEP "line_rt_ns") in CPM)) { bad(s ": pair " q[1] "/" q[2] ": no line_rt_ns"); nb++ } }
	split("", seen)
	for (c in CPOS) {
		p = CPOS[c]
		if (p !~ /^[0-9]+$/ || p + 0 >= NE || (p in seen)) { bad(s ": CPU " c " at position " p ": not one of 0-" NE - 1 " or taken twice"); nb++ }
		seen[p] = 1
	}
	nb += cp_classes(s)
	nb += cp_contig(s, SIBL, "core") + cp_contig(s, LLCL, "LLC") + cp_contig(s, NODE, "node")
	# Threads of a core by CPU number.
	for (x in CPOS) for (y in CPOS) if (x + 0 < y + 0 && ((x SUBSEP y) in SIB) && CPOS[x] + 0 > CPOS[y] + 0) { bad(s ": sibling " x " after " y " in the order"); nb++ }
	if (!nb) ok(s ": " n " ordered pairs = " NE " x " NE - 1 " allowed CPUs, each with line_rt_ns; positions in topology order (cores, LLCs, nodes contiguous); classes as the snapshot says")
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
		if (!((CPB[i] SUBSEP CPA[i]) in CPK)) { bad(s ": pair " CPA[i] "/" CPB[i] " without its reverse"); nb++ }
		nm = split("line_rt_ns futex_rt_us pipe_rt_us", M3, " ")
		for (m = 1; m <= nm; m++) if (!((CPA[i] SUBSEP CPB[i] SUBSEP M3[m]) in CPM)) { bad(s ": pair " CPA[i] "/" CPB[i] ": no " M3[m]); nb++ }
	}
	want = ""; got = ""
	split("smt llc cross-llc cross-node", PC, " ")
	for (i = 1; i <= 4; i++) {
		c = PC[i]
		if (c in W) want = want " " c
		if (c in G) got = got " " c (G[c] != 2 ? "(" G[c] " pairs)" : "")
	}
	if (got != want) { bad(s ": classes" got ", the allowed CPUs offer" want " (one pair and its reverse each)"); nb++ }
	if (!nb) ok(s ": classes" got ": one pair and its reverse each, with line, futex and pipe round trips; classes as the snapshot says")
	CPCLS = got
}
# --idle poll holds /dev/cpu_dma_latency: records say idle=poll, or a clean skip without it.
function check_cp_poll(s,    n, t) {
	if (!(s in STEPRC)) { bad(s ": not run"); return }
	if (STEPRC[s] == 4 && PMQOS == "no" && LASTERR[s] ~ /cpu_dma_latency/) { ok(s ": skipped, no /dev/cpu_dma_latency: " LASTERR[s]); CPPOLL = "skipped"; return }
	if (STEPRC[s] != 0) { bad(s ": exit " STEPRC[s] ": " LASTERR[s] " (/dev/cpu_dma_latency " (PMQOS == "yes" ? "present" : "absent") ")"); return }
	if ((n = cp_read(s)) <= 0) { if (n == 0) bad(s ": no records"); return }
	if (CPIDLE != " poll") bad(s ": records not all idle=poll; idle values seen:" CPIDLE)
	else { ok(s ": " n " pairs measured, every record carries idle=poll"); CPPOLL = "ran" }
}
# --idle haltpoll:NS: only under the haltpoll cpuidle driver; elsewhere exit 4 with the reason.
function check_cp_haltpoll(s,    n) {
	if (!(s in STEPRC)) { bad(s ": not run"); return }
	if (CPUIDLE != "haltpoll") {
		if (STEPRC[s] == 4 && LASTERR[s] ~ /haltpoll/) { ok(s ": cpuidle driver " (CPUIDLE == "" ? "none" : CPUIDLE) ": skipped with the reason: " LASTERR[s]); CPHALT = "skipped" }
		else bad(s ": cpuidle driver " (CPUIDLE == "" ? "none" : CPUIDLE) ", want exit 4 naming haltpoll, got exit " STEPRC[s] ": " LASTERR[s])
		return
	}
	if (STEPRC[s] != 0) { bad(s ": haltpoll driver present, exit " STEPRC[s] ": " LASTERR[s]); return }
	if ((n = cp_read(s)) <= 0) { if (n == 0) bad(s ": no records"); return }
	if (CPIDLE !~ /^ haltpoll:[0-9]+$/) bad(s ": records not all idle=haltpoll:NS; idle values seen:" CPIDLE)
	else { ok(s ": haltpoll driver: " n " pairs measured with" CPIDLE); CPHALT = "ran" }
}

BEGIN { NOK = 0; NBAD = 0; MAXCPU = 0 }
kind == "facts" {
	if ($1 == "online") { expand($2, ON); ONL = $2 }
	else if ($1 == "sib") { SIBL[$2] = $3; expand($3, T); for (c in T) SIB[$2 + 0, c + 0] = 1 }
	else if ($1 == "cache") {
		if ($4 != "Instruction" && (!($2 in LLCLEV) || $3 + 0 > LLCLEV[$2])) { LLCLEV[$2] = $3 + 0; LLCL[$2] = $5 }
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
	else if ($1 == "desc") { $1 = ""; DESC = substr($0, 2) }
	next
}
kind == "csv" || kind == "kv" { NREC[step]++; REC[step, NREC[step]] = $0; next }
kind == "err" { NERR[step]++; ERR[step, NERR[step]] = $0; LASTERR[step] = $0; next }
kind == "hraw" { NREC["harness"]++; REC["harness", NREC["harness"]] = $0; next }
kind == "hruns" { NRUNS++; RUNS[NRUNS] = $0; next }
kind == "hfail" { NHF++; HFAIL[NHF] = $0; next }
kind == "hmachine" { NHM++; HM[NHM] = $0; next }

END {
	# ---- the topology, as the guest's sysfs says ----
	for (c in LLCL) { expand(LLCL[c], T); for (k in T) LLCM[c + 0, k + 0] = 1; HASLLC[c] = 1 }
	split("", E); NE = 0
	if (CPUSET != "") expand(CPUSET, REQ); else for (c in ON) REQ[c] = 1
	for (c in REQ) if (c in ON) { E[c] = 1; NE++ }
	EL = fmt(E)
	print "topology from the guest's sysfs (thread_siblings_list, cache/index*/shared_cpu_list, node*/cpulist, online):"
	print "  online " ONL "; allowed " EL (CPUSET != "" ? " (taskset -c " CPUSET (OFFREQ != "" ? ", cpu" OFFREQ " offline" : "") ")" : "")
	s = ""; split("", SEENC)
	for (c = 0; c <= MAXCPU; c++) if ((c in SIBL) && !(SIBL[c] in SEENC)) { SEENC[SIBL[c]] = 1; s = s " " SIBL[c] }
	print "  cores (SMT siblings):" s
	s = ""; split("", SEENC)
	for (c = 0; c <= MAXCPU; c++) if ((c in LLCL) && !(LLCL[c] in SEENC)) { SEENC[LLCL[c]] = 1; s = s " " LLCL[c] }
	print "  LLCs:" s
	s = ""; for (c = 0; c <= 64; c++) if (c in NODEL) s = s " node" c "=" NODEL[c]
	print "  NUMA:" (s == "" ? " no node directories" : s)
	print ""
	print "checks:"
	for (c in ON) if (!(c in SIBL)) bad("cpu" c ": online but no thread_siblings_list in the snapshot")
	for (c in ON) if (!(c in LLCL)) bad("cpu" c ": online but no cache information in the snapshot")
	if (OFFREQ != "") {
		if (OFFREQ in ON) bad("cpu" OFFREQ " should be offline but /sys/devices/system/cpu/online says " ONL)
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
	for (s in KMET) if (KMET[s] != "") bad(s ": kernel statistics written on a kernel without FUSE tracepoints:" KMET[s])
	# kernel statistics: auto skips with a reason, on exits 4 with it
	for (i = 1; i <= NERR["cputestfs"]; i++) if (ERR["cputestfs", i] ~ /kernel statistics .*: kernel_\* metrics not written/) ks1 = ERR["cputestfs", i]
	if (ks1 != "") ok("cputestfs --kstats auto: " ks1); else bad("cputestfs --kstats auto: no line saying why kernel statistics were not written")
	for (i = 1; i <= NERR["ddpar"]; i++) if (ERR["ddpar", i] ~ /kernel statistics .*: kernel_\* metrics not written/) ks2 = ERR["ddpar", i]
	if (ks2 != "") ok("ddpar --kstats auto: " ks2); else bad("ddpar --kstats auto: no line saying why kernel statistics were not written")
	split("cputestfs-kstats-on ddpar-kstats-on", KS, " ")
	for (i = 1; i <= 2; i++) {
		s = KS[i]
		if (STEPRC[s] == 4 && LASTERR[s] ~ /kernel statistics/ && LASTERR[s] ~ /tracepoint/) ok(s ": exit 4, " LASTERR[s])
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
	if (got == want) ok("ddpar: processes" got " (up to 2 x " NE " allowed CPUs" (2 * NE > 128 ? ", capped at 128 by ddpar" : "") ")")
	else bad("ddpar: processes" got ", expected" want " (2 x " NE " allowed CPUs)")
	nd = 0; ndb = 0
	if (!("write" in DMODE)) bad("ddpar: no write records")
	for (md in DMODE) for (n = 1; n <= 256; n++) if (n in DP) for (cf = 0; cf <= 1; cf++) {
		k = md SUBSEP n SUBSEP (cf ? "on" : "off")
		pt = "ddpar " md " procs=" n " clone_fd=" (cf ? "on" : "off")
		if (!(k in DMB)) { bad(pt ": no MB/s record"); continue }
		nd++
		if (DC[k] != DB[k] || DC[k] == "") { bad(pt ": client bytes " DC[k] " != daemon bytes " DB[k]); ndb++ }
	}
	modes = ""; for (md in DMODE) modes = modes " " md
	if (nd && !ndb) ok("ddpar:" modes ": " nd " points measured, daemon bytes = client bytes in each")
	if (2 * NE > 128) note("ddpar cannot sweep to 2 x " NE " = " 2 * NE " processes: --procs is limited to 128 (documented)")

	# ---- sqrtio: IRQ discovery and readers on/off the completing CPU, per disk ----
	SQWANT["sqrtio"] = " 0 1 2 "; DISKOF["sqrtio"] = "vda"
	check_sqrtio("vda", "sqrtio-discover", "sqrtio", "vda (multi-queue)")
	if ("sqrtio-1q" in STEPRC) {
		SQWANT["sqrtio-1q"] = " 1 "; DISKOF["sqrtio-1q"] = "vdb"
		check_sqrtio("vdb", "sqrtio-1q-discover", "sqrtio-1q", "vdb (one queue)")
	}
	s = "sqrtio-irq-affinity"
	if (STEPRC[s] == 4 && LASTERR[s] ~ /refuses to move this IRQ/) ok(s ": skipped with the reason: " LASTERR[s])
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
		if (FM[M[i]] != w) { bad("fdget " M[i] ": threads=" FM[M[i]] ", want " w " (one per allowed CPU)"); fg = 0 }
	}
	if (fg) ok("fdget: all modes measured; shared-fd, private-fd, procs with " NE " workers (one per allowed CPU)")
	if (!FSP) bad("fdget: no us_per_spawn record")

	# ---- cpupair: the matrix (small shapes), the classes sample, the idle axis ----
	if ("cpupair-matrix" in STEPRC) check_cp_matrix("cpupair-matrix")
	else if (CNT(ON) <= 16) bad("cpupair-matrix: not run on " CNT(ON) " online CPUs (suite.sh runs it up to 16)")
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
			if (r !~ /^skipped: ./) { bad("harness " f[1] " " f[8] ": skipped without a reason in failures.csv"); continue }
			# Is the skip the machine's? Placements and sqrtio points are checked against the snapshot.
			if (f[1] == "cputestfs" && f[8] ~ /placement=/) {
				p = f[8]; sub(/.*placement=/, "", p); sub(/;.*/, "", p)
				HSKIPPED[p] = 1
				if (possible(p)) bad("harness cputestfs " p ": skipped (" r ") but the allowed CPUs offer it")
				else ok("harness cputestfs " p ": " r)
			} else if (f[1] == "sqrtio" && f[8] ~ /local=/) {
				l = f[8]; sub(/.*local=/, "", l); l = substr(l, 1, 1)
				if (l == 1 ? CNT(HLOC) : CNT(HREM)) bad("harness sqrtio " f[8] ": skipped (" r ") but the derived map offers it")
				# The machine's reason names the completing CPUs; "reasons above" points at a log
				# line failures.csv and report.md do not carry.
				else if (r !~ /complet/) bad("harness sqrtio " f[8] ": skipped, but failures.csv does not say why (\"" r "\"): the reason (" (l == 1 ? "no allowed CPU completes its own reads" : "every allowed CPU completes its own reads") ") is only in the point's log")
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
	for (i = 1; i <= NPL; i++) if (!(("h" SUBSEP PL[i]) in TAB)) TAB["h", PL[i]] = HSKIPPED[PL[i]] ? "skipped" : "-"
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
		if (l ~ /^allowed_cpus /) { hm_allowed = l; sub(/^allowed_cpus +/, "", hm_allowed); sub(/ .*/, "", hm_allowed) }
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

	for (s in PINOK) ok(s ": same_cpu_pct 100 under same, 0 under two-CPU placements, to a call (" PINOK[s] " placements): the daemon ran where it was pinned")
	# ---- the table ----
	print ""
	print "placements (cputestfs; client/daemon CPUs as resolved in the guest):"
	printf "  %-11s %-12s %-20s %-14s %s\n", "placement", "1 client", "2 clients", "harness plan", ("cputestfs-cpus" in STEPRC) ? "--cpus " CPUSARG : ""
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
	printf "cpupair: matrix %s; classes%s; --idle poll %s; --idle haltpoll:NS %s (cpuidle driver %s)\n", CPMAT == "" ? "-" : CPMAT, CPCLS == "" ? " -" : CPCLS, CPPOLL == "" ? "-" : CPPOLL, CPHALT == "" ? "-" : CPHALT, CPUIDLE == "" ? "none" : CPUIDLE
	print ""
	printf "%d checks passed, %d failed\n", NOK, NBAD
	exit NBAD ? 1 : 0
}
