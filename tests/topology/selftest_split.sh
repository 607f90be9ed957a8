# SPDX-License-Identifier: GPL-2.0
# The self-test's cases for report.md's split of other minus same (check_split.awk):
# sourced by tests/topology/selftest.sh, whose expect, sedi, run_check, t_ok and t_bad
# they use. Each doctored copy of fixture A plants one fault the check must catch; one
# split that holds and adds up must pass.
# Fixture A's paragraph says the model does not hold (the guest's cache line was flagged,
# its wake-ups outgrew the total)
SPR=harness/report.md
sp_is() { grep -e '^Other minus same: ' -e '^Of the .* us a stat() served on CPU ' \
	-e '^A stat() served on CPU ' "$SPR"; }
sp_set() { # TEXT: the paragraph becomes TEXT
	awk -v t="$1" '/^(Other minus same: |Of the .* us a stat\(\) served on CPU |A stat\(\) se)/ {
		print t; next } { print }' $SPR >x && mv x $SPR
}
sp_drop() { grep -v '^Other minus same: ' $SPR >x && mv x $SPR; }
expect "split: report.md without the paragraph, other and same measured" \
	A "no paragraph splitting other minus same" sp_drop
sp_twice() { sp_is >x && cat x >>$SPR; }
expect "split: two paragraphs" A "split: 2 paragraphs, want one" sp_twice
sp_garbled() { sedi $SPR 's/does not hold on this machine:/does not hold here:/'; }
expect "split: a paragraph in none of the forms" A "none of its four forms" sp_garbled
sp_nopieces() { sedi $SPR 's/ The measured pieces: .*//'; }
expect "split: the model does not hold, the measured pieces not given" \
	A "does not hold, without the measured pieces" sp_nopieces
sp_negpiece() {
	sedi $SPR 's/between CPUs \([0-9]*\) and \([0-9]*\) took /&-/'
	sp_is | grep -q 'took -'
}
expect "split: a measured piece printed as a negative time" A "split: a negative time: .* us" \
	sp_negpiece
# A split that holds, its parts as report_split.c words them (0.4 + 60 + 169 = 229)
SPH="Of the 229 us a stat() served on CPU 14 for a caller on CPU 15 costs more than one served"
SPH="$SPH on the caller's CPU ([229, 229]), 0.4 us [0.4, 0.4] are the cache transfers (cpupair's"
SPH="$SPH cache-line round trip of the pair), 60 us [50, 70] the wake-ups crossing adds (its pipe"
SPH="$SPH round trip between the CPUs less that on CPU 15 alone and less the cache line; every"
SPH="$SPH wait slept) and 169 us [159, 179] FUSE's own path (what remains; a part below 0 within"
SPH="$SPH its interval reads 0)."
sp_holds() { sp_set "$SPH"; }
cp -r "$W/base-A" "$W/holds"
(cd "$W/holds" && sp_holds)
if run_check awk "$W/holds" && grep -q 'split: the parts add up to the total' "$W/holds.out"; then
	t_ok "split: a split that holds and adds up passes ($(grep -m1 'add up' "$W/holds.out" |
		sed 's/^ *ok *//' | cut -c1-120))"
else
	t_bad "split: a split that holds and adds up does not pass:"
	grep -e FAIL -e 'checks passed' "$W/holds.out" | head -n 5 | sed 's/^/#   /'
fi
rm -rf "$W/holds" "$W/holds.out"
sp_negpart() { sp_set "$(echo "$SPH" | sed 's/60 us \[50, 70\]/-60 us [-70, -50]/')"; }
expect "split: a part below zero" A "split: the wake-ups crossing adds below zero" sp_negpart
sp_noadd() { sp_set "$(echo "$SPH" | sed 's/169 us \[159, 179\]/669 us [659, 679]/')"; }
expect "split: parts that do not add up to the total" A "split: the parts do not add up" sp_noadd
sp_noreason() {
	sp_set "Other minus same: 229 us per stat(). Its split into cache transfers, wake-ups and$(
		) FUSE's own path cannot be given: ."
}
expect "split: cannot be given, no reason said" A "cannot be given, without a reason" sp_noreason
