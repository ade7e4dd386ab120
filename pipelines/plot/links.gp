# pipelines/plot/links.gp: link utilisation of an InfiniBand fabric, from
# `ibsim --net ib --linkstats FILE`: per link direction the share of the run
# it was busy sending, and the share it was stalled waiting for credits.
#   gnuplot -e "in='links.tsv'; out='links.png'; span=END_PS; name='...'" links.gp
# span: the simulated run time in picoseconds (the largest end_ps of the results).
if (!exists("in")) in = "links.tsv"
if (!exists("out")) out = "links.png"
if (!exists("name")) name = in
if (!exists("span")) { print "links.gp: span (the run time in ps) is required"; exit status 1 }
if (out[strlen(out)-3:] eq ".svg") {
	set terminal svg size 1100,560 dynamic font "sans,11" background "white"
} else {
	set terminal pngcairo size 1100,560 font "sans,10"
}
set output out
set datafile separator "\t"
set title sprintf("Link utilisation: %s", name)
set ylabel "share of the run (%)"
set yrange [0:*]
set grid ytics
set key top right
set style fill solid 0.85 border -1
set boxwidth 0.4
set xtics rotate by -60 nomirror font ",8"
set offsets 0.5, 0.5, 0, 0
plot in every ::1 using ($0 - 0.2):($8 * 100.0 / span):xtic(strcol(1) . ">" . strcol(3)) with boxes lc rgb "#1f77b4" title "busy", \
     '' every ::1 using ($0 + 0.2):($9 * 100.0 / span) with boxes lc rgb "#d62728" title "stalled (no credits)"
