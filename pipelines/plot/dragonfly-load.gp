# pipelines/plot/dragonfly-load.gp: the chart of pipelines/dragonfly-load.sh:
# mean message latency against offered load, one panel per traffic pattern
# (uniform, adversarial), one line per routing, latency on a log scale.
#   gnuplot -e "in='load.tsv'; out='dragonfly-load.png'; topo='dragonfly:4,2,2'; \
#               routings='minimal valiant ugal'; patterns='uniform adversarial'" dragonfly-load.gp
# in: the sweep's TSV (pattern routing offered accepted mean_ns p99_ns
# nonminimal, a header row) with every routing and pattern named.
if (!exists("in")) in = "load.tsv"
if (!exists("out")) out = "dragonfly-load.png"
if (!exists("topo")) topo = "dragonfly:4,2,2"
if (!exists("routings")) routings = "minimal valiant ugal ugal-g"
if (!exists("patterns")) patterns = "uniform adversarial"
if (out[strlen(out)-3:] eq ".svg") {
	set terminal svg size 1100,480 dynamic font "sans,11" background "white"
} else {
	set terminal pngcairo size 1100,480 font "sans,10"
}
set output out
set datafile separator "\t"
set logscale y
set grid xtics ytics mytics lc rgb "#dddddd"
set xlabel "offered load (fraction of a host link)"
set ylabel "mean latency (us)"
set xrange [0:1.02]
set key top left
colours = "#1f77b4 #d62728 #2ca02c #9467bd"
# the lines of one pattern and routing (a filter, so that lines join their points)
sel(p, r) = sprintf("< awk -F'\t' '$1 == \"%s\" && $2 == \"%s\"' '%s'", p, r, in)
set multiplot layout 1,words(patterns) title sprintf("%s under load: latency against offered load", topo)
do for [pat in patterns] {
	set title pat
	plot for [i=1:words(routings)] sel(pat, word(routings, i)) using 3:($5 / 1000) \
	     with linespoints pt 7 ps 0.6 lw 2 lc rgb word(colours, i) title word(routings, i)
}
unset multiplot
