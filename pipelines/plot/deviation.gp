# pipelines/plot/deviation.gp: real vs simulated run time per application and
# rank count, as bars (real, loggops, ib) with the deviation of each
# simulation written above its bar. Log scale: the runs span 0.1 ms to seconds.
#   gnuplot -e "in='deviation.tsv'; out='deviation.png'" deviation.gp
# in: the deviation table of pipelines/demo.mk (app ranks real_us loggops_us
# loggops_dev_pct loggops_worst_pct ib_us ib_dev_pct ib_worst_pct, a header row).
if (!exists("in")) in = "deviation.tsv"
if (!exists("out")) out = "deviation.png"
if (out[strlen(out)-3:] eq ".svg") {
	set terminal svg size 1000,560 dynamic font "sans,11" background "white"
} else {
	set terminal pngcairo size 1000,560 font "sans,10"
}
set output out
set datafile separator "\t"
set title "Real vs simulated run time (slowest rank); labels: deviation of the simulation"
set ylabel "run time (us)"
set logscale y
set grid ytics
set key top left
set style fill solid 0.85 border -1
set boxwidth 0.26
set xtics rotate by -30 nomirror
stats in every ::1 using 3 nooutput
lo = STATS_min; hi = STATS_max
stats in every ::1 using 4 nooutput
lo = STATS_min < lo ? STATS_min : lo; hi = STATS_max > hi ? STATS_max : hi
stats in every ::1 using 7 nooutput
lo = STATS_min < lo ? STATS_min : lo; hi = STATS_max > hi ? STATS_max : hi
set yrange [lo / 3 : hi * 6]
set xrange [-0.6 : STATS_records - 0.4]
w = 0.27
plot in every ::1 using ($0 - w):3:xtic(sprintf("%s-%d", strcol(1), column(2))) with boxes lc rgb "#555555" title "real", \
     '' every ::1 using ($0):4 with boxes lc rgb "#1f77b4" title "loggops (calibrated)", \
     '' every ::1 using ($0 + w):7 with boxes lc rgb "#ff7f0e" title "ib, fat tree", \
     '' every ::1 using ($0):($4 * 1.12):(sprintf("%+.1f%%", $5)) with labels rotate by 90 left font ",8" tc rgb "#10508a" notitle, \
     '' every ::1 using ($0 + w):($7 * 1.12):(sprintf("%+.1f%%", $8)) with labels rotate by 90 left font ",8" tc rgb "#c05000" notitle
