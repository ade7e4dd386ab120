# pipelines/plot/matrix.gp: traffic matrix heat map, bytes sent from each rank
# (y) to each rank (x), from the first section of `goalc --matrix FILE`
# (formats/matrix.md). Pairs without messages stay white.
#   gnuplot -e "in='app.matrix'; out='matrix.png'; name='LAMMPS'" matrix.gp
if (!exists("in")) in = "matrix.tsv"
if (!exists("out")) out = "matrix.png"
if (!exists("name")) name = in
if (out[strlen(out)-3:] eq ".svg") {
	set terminal svg size 720,640 dynamic font "sans,11" background "white"
} else {
	set terminal pngcairo size 720,640 font "sans,10"
}
set output out
set datafile separator "\t"
stats in index 0 using 1:2 nooutput
n = int(STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y) + 1
stats in index 0 using 4 nooutput
bmin = STATS_min > 0 ? STATS_min : 1
bmax = STATS_max > bmin ? STATS_max : bmin * 2
set title sprintf("Traffic matrix: %s (bytes sent)", name)
set xlabel "destination rank"
set ylabel "source rank"
set xrange [-0.5:n - 0.5]
set yrange [n - 0.5:-0.5]
set size ratio -1
set xtics 1 out nomirror
set ytics 1 out nomirror
if (n > 32) { set xtics n / 16 ; set ytics n / 16 }
set logscale cb
set cbrange [bmin / 2.0 : bmax * 1.0]
set cblabel "bytes"
set format cb "%.0s%cB"
set palette defined (0 "#fff5eb", 1 "#fd8d3c", 2 "#a63603", 3 "#3f0f00")
set style fill solid 1.0 noborder
plot in index 0 using 2:1:(0.5):(0.5):($4 > 0 ? $4 : bmin / 2.0) with boxxyerror fc palette notitle
