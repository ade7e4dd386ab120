# pipelines/plot/topo-sweep.gp: the chart of pipelines/topo-sweep.mk: per
# topology a group of bars, one per routing engine and placement, the height
# the simulated run time's slowdown against the fastest combination. A
# combination ibsim refused (ftree on a topology that is not a fat tree) is
# marked n/a.
#   gnuplot -e "in='table.tsv'; out='x.png'; name='app'; combos='minhop/seq ...'; ntopo=6" topo-sweep.gp
# in: topo routing placement end_us vs_best_pct max_link_busy_pct stall_us, a header row,
# rows topology by topology, combinations in the order of combos.
if (!exists("in")) in = "table.tsv"
if (!exists("out")) out = "topo-sweep.png"
if (!exists("name")) name = in
if (out[strlen(out)-3:] eq ".svg") {
	set terminal svg size 1100,560 dynamic font "sans,11" background "white"
} else {
	set terminal pngcairo size 1100,560 font "sans,10"
}
set output out
set datafile separator "\t"
nc = words(combos)
gx(i) = i + int(i / nc)
stats in every ::1 using 4 nooutput
best = STATS_min
set title sprintf("Topology sweep: %s (fastest: %.1f us)", name, best)
set ylabel "slowdown against the fastest (%)"
set yrange [0:*]
set grid ytics
set key outside right top title "routing/placement"
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics nomirror scale 0
set xrange [-1 : gx(ntopo * nc - 1) + 1]
plot in every ::1 using (gx($0)):5:(int($0) % nc + 1):xtic(int($0) % nc == int(nc / 2) ? strcol(1) : "") \
        with boxes lc variable notitle, \
     '' every ::1 using (gx($0)):(0):(strcol(4) eq "failed" ? "n/a" : "") with labels rotate by 90 left offset 0,0.3 font ",8" notitle, \
     for [k = 1:nc] NaN with boxes lc k title word(combos, k)
