# pipelines/plot/size-sweep.gp: the chart of pipelines/size-sweep.mk: one-way
# time of the ping-pong per message size, real (points) and simulated on the
# loggops and ib networks (lines), log-log (size 0 is not drawn).
#   gnuplot -e "in='curves.tsv'; out='size-sweep.png'; topo='fattree2:4'" size-sweep.gp
# in: size_bytes real_us loggops_us ib_us with a header row ('-': no value).
if (!exists("in")) in = "curves.tsv"
if (!exists("out")) out = "size-sweep.png"
if (!exists("topo")) topo = "fattree2:4"
if (out[strlen(out)-3:] eq ".svg") {
	set terminal svg size 960,600 dynamic font "sans,11" background "white"
} else {
	set terminal pngcairo size 960,600 font "sans,10"
}
set output out
set datafile separator "\t"
set datafile missing "-"
set title "Ping-pong: one-way time per message size, real and simulated"
set xlabel "message size (bytes)"
set ylabel "one-way time (us)"
set logscale xy
set format x "%.0s%cB"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key top left
pos(x) = x > 0 ? x : 1/0
plot in every ::1 using (pos($1)):2 with points pt 7 ps 0.9 lc rgb "#333333" title "real (median of repetitions)", \
     '' every ::1 using (pos($1)):3 with linespoints pt 6 lw 2 lc rgb "#1f77b4" title "loggops, calibrated", \
     '' every ::1 using (pos($1)):4 with linespoints pt 4 lw 2 lc rgb "#ff7f0e" title sprintf("ib, %s (4x DDR)", topo)
