# pipelines/plot/sizes.gp: message-size histogram of a schedule, from the second
# section of `goalc --matrix FILE` (formats/matrix.md): messages per
# power-of-two size class (top) and the bytes they carry (bottom).
#   gnuplot -e "in='app.matrix'; out='sizes.png'; name='LAMMPS'" sizes.gp
if (!exists("in")) in = "matrix.tsv"
if (!exists("out")) out = "sizes.png"
if (!exists("name")) name = in
if (out[strlen(out)-3:] eq ".svg") {
	set terminal svg size 900,640 dynamic font "sans,11" background "white"
} else {
	set terminal pngcairo size 900,640 font "sans,10"
}
set output out
set datafile separator "\t"
hum(x) = x >= 1073741824 ? sprintf("%.0fG", x / 1073741824.) : x >= 1048576 ? sprintf("%.0fM", x / 1048576.) : \
         x >= 1024 ? sprintf("%.0fK", x / 1024.) : sprintf("%.0f", x)
lab(a, b) = a == b ? hum(a) : hum(a) . "-" . hum(b)
set multiplot layout 2,1 title sprintf("Message sizes: %s", name)
set style fill solid 0.85 border -1
set boxwidth 0.8
set grid ytics
set xtics rotate by -45 nomirror font ",8"
set logscale y
set yrange [0.8:*]
set ylabel "messages"
unset key
plot in index 1 using 0:($3 > 0 ? $3 : 1/0):xtic(lab($1, $2)) with boxes lc rgb "#1f77b4"
set ylabel "bytes"
set xlabel "message size class (bytes)"
set format y "%.0s%cB"
plot in index 1 using 0:($4 > 0 ? $4 : 1/0):xtic(lab($1, $2)) with boxes lc rgb "#ff7f0e"
unset multiplot
