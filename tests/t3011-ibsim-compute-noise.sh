#!/bin/sh
# Compute what-if and noise (docs/loggops-semantics.md section 8): --cpu-scale, noise files
# in ibreplay's format (formats/noise.md) and LogGOPSim's, and the seeded perturbation of
# every calc. Hand-derived end times; the same seed gives the same bytes.
. "$(dirname "$0")/lib.sh"

ends() { grep -v "^#" "$1" | awk 'NR > 1 { print $1, $2, $3 }'; }

# LogGOPSim's first reference case (docs/loggops-semantics.md section 7): both ranks end at
# 5654 = 100 + o + L + o + 9*G.
cat >ref.goal <<'EOF2'
num_ranks 2
rank 0 {
c: calc 100
s: send 10b to 1 tag 0
r: recv 10b from 1 tag 0
s requires c
}
rank 1 {
c: calc 100
s: send 10b to 0 tag 0
r: recv 10b from 0 tag 0
s requires c
}
EOF2
cat >two.goal <<'EOF2'
num_ranks 2
rank 0 {
c: calc 10000
}
rank 1 {
c: calc 10000
}
EOF2

test_expect_success '--cpu-scale multiplies every calc, not the overheads' '
	ibsim -q --cpu-scale 2 ref.goal >s.out && ends s.out >got &&
	printf "0 5754 200\n1 5754 200\n" >want && test_cmp want got &&
	head -n 1 s.out | grep -q " O_rndv=0 cpu_scale=2 ranks=2 " &&
	ibsim -q --cpu-scale 0.5 ref.goal >h.out && ends h.out >got &&
	printf "0 5604 50\n1 5604 50\n" >want && test_cmp want got &&
	printf "cpu_scale = 2.5\n" >c.params &&
	ibsim -q -p c.params two.goal >p.out && ends p.out >got &&
	printf "0 25000 25000\n1 25000 25000\n" >want && test_cmp want got
'

test_expect_success 'a scaled calc is rounded to the nearest picosecond, halves up' '
	printf "num_ranks 1\nrank 0 {\nc: calc 3\n}\n" >c3.goal &&
	ibsim -q --cpu-scale 0.5 c3.goal >r.out && ends r.out >got &&
	printf "0 2 2\n" >want && test_cmp want got
'

cat >n.txt <<'EOF2'
# every host
0 300
2000 500
5000 1000   # a comment
host 1
300 100
EOF2

test_expect_success 'noise: work stops during the detours of its host' '
	# rank 0: starts at 300, 1700 done at 2000, 4200 at 5000, the last 5800 from 6000;
	# rank 1: [0,300) and [300,400) merge, it starts at 400: 1600, 2500, 5900 from 6000
	ibsim -q --noise n.txt two.goal >n.out && ends n.out >got &&
	printf "0 11800 10000\n1 11900 10000\n" >want && test_cmp want got &&
	head -n 1 n.out | grep -q " O_rndv=0 noise=yes detours=4 ranks=2 "
'

test_expect_success 'noise: a detour delays the overhead of a message' '
	# rank 1 handles the message of rank 0 at 4100 for 1554 ps; the detour adds 500
	printf "host 1\n4500 500\n" >m.txt &&
	ibsim -q --noise m.txt ref.goal >m.out && ends m.out >got &&
	printf "0 5654 100\n1 6154 100\n" >want && test_cmp want got
'

test_expect_success 'noise in LogGOPSim format: nanoseconds, on every host' '
	printf "# LogGOPSim noise trace\n0\t0.3\n2\t0.5\n5\t1\n" >lg.ns &&
	ibsim -q --noise-loggopsim lg.ns two.goal >l.out && ends l.out >got &&
	printf "0 11800 10000\n1 11800 10000\n" >want && test_cmp want got &&
	head -n 1 l.out | grep -q " noise=loggopsim detours=3 " &&
	printf "noise_loggopsim = lg.ns\n" >lg.params &&
	ibsim -q -p lg.params two.goal >l2.out && test_cmp l.out l2.out
'

test_expect_success 'noise with shared cores: the slots and the detours both stop work' '
	# spin, slots of 3000: rank 0 owns [0,3000) [6000,9000) ...; a detour [1000,2000)
	# on host 0 leaves it 2000 in its first slot: 8000 done at 15000, 2000 more at 20000;
	# rank 1 (the same host) owns [3000,6000) ..., which no detour touches: 22000 as without
	printf "1000 1000\n" >o.txt &&
	ibsim -q --noise o.txt --cores 1 --ranks-per-host 2 --quantum 3000 --cpu-wait spin two.goal >o.out && ends o.out >got &&
	printf "0 20000 10000\n1 22000 10000\n" >want && test_cmp want got
'

printf "num_ranks 4\n" >four.goal
for r in 0 1 2 3; do printf "rank $r {\na: calc 1000000\nb: calc 1000000\n}\n" >>four.goal; done

test_expect_success 'perturbation: the same seed gives the same bytes, another seed not' '
	ibsim -q --perturb 0.1 --seed 7 four.goal >a.out &&
	ibsim -q --perturb 0.1 --seed 7 four.goal >b.out && test_cmp a.out b.out &&
	ibsim -q --perturb 0.1 --seed 8 four.goal >c.out && ! cmp -s a.out c.out &&
	head -n 1 a.out | grep -q " perturb=0.1 seed=7 ranks=4 " &&
	ibsim -q --perturb 0.1 four.goal >d.out && head -n 1 d.out | grep -q " seed=1 "
'

test_expect_success 'perturbation: every calc within [0.9, 1.1) of itself' '
	ibsim -q --perturb 0.1 --seed 3 four.goal >a.out &&
	awk "NR > 2 { if (\$3 < 1800000 || \$3 >= 2200000 || \$3 == 2000000 || \$2 != \$3) bad = 1 } END { exit bad }" a.out
'

test_expect_success 'noise and perturbation repeat across runs with both on' '
	ibsim -q --perturb 0.2 --seed 11 --noise n.txt --cores 2 --ranks-per-host 4 --quantum 300000 four.goal >x.out &&
	ibsim -q --perturb 0.2 --seed 11 --noise n.txt --cores 2 --ranks-per-host 4 --quantum 300000 four.goal >y.out &&
	test_cmp x.out y.out
'

cat >errs.want <<'EOF2'
ibsim: e1.txt:2: expected a start and a duration, found one field
ibsim: e2.txt:1: invalid time for detour duration: '2xs' (expected a number with an optional unit ps, ns, us, ms or s; plain numbers are ps)
ibsim: e3.txt:1: invalid host range '7-3' (expected N, N-M with N <= M, or all)
ibsim: e4.txt:1: expected 'host RANGE'
ibsim: e5.ns:2: invalid duration '-5' (expected a non-negative number of nanoseconds)
ibsim: e6.txt:1: expected a start and a duration, found more than two fields
ibsim: e7.txt:1: detour ends beyond 2^64 ps
ibsim: e8.txt: cannot open: No such file or directory
EOF2

test_expect_success 'bad noise files: file, line and what is wrong; exit 1' '
	printf "0 1\n5\n" >e1.txt &&
	printf "0 2xs\n" >e2.txt &&
	printf "host 7-3\n" >e3.txt &&
	printf "host 1 2\n" >e4.txt &&
	printf "0\t1\n3\t-5\n" >e5.ns &&
	printf "0 1 2\n" >e6.txt &&
	printf "18446744073709551615 1\n" >e7.txt &&
	: >got &&
	for f in e1.txt e2.txt e3.txt e4.txt e5.ns e6.txt e7.txt e8.txt; do
		case $f in *.ns) o=--noise-loggopsim ;; *) o=--noise ;; esac &&
		expect_fail 1 ibsim $o $f two.goal && cat err >>got || return 1
	done &&
	test_cmp errs.want got
'

cat >perr.want <<'EOF2'
ibsim: --perturb: invalid perturb '1' (expected a decimal number from 0 to below 1)
ibsim: --cpu-scale: invalid cpu_scale '0' (expected a decimal number above 0 and at most 1e9)
ibsim: noise and noise_loggopsim cannot both be given
EOF2

test_expect_success 'bad values of the options (exit 2); two noise files (exit 1)' '
	: >got &&
	expect_fail 2 ibsim --perturb 1 two.goal && head -n 1 err >>got &&
	expect_fail 2 ibsim --cpu-scale 0 two.goal && head -n 1 err >>got &&
	printf "0 1\n" >ok.txt &&
	expect_fail 1 ibsim --noise ok.txt --noise-loggopsim ok.txt two.goal && head -n 1 err >>got &&
	test_cmp perr.want got
'

test_done
