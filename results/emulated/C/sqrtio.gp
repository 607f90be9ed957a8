# regenerate with: gnuplot sqrtio.gp (in this directory)
set encoding utf8
set grid ytics
set terminal pngcairo size 1200,450
set output 'sqrtio.png'
set multiplot layout 1,2
set xlabel 'rq_affinity' noenhanced
set title 'sqrt work' noenhanced
set ylabel 'M sqrt/s' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'sqrtio_sqrt.dat' using 2:3:4:xtic(1) title 'local=1'
set title '4 KiB O_DIRECT reads' noenhanced
set ylabel 'K ios/s' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'sqrtio_io.dat' using 2:3:4:xtic(1) title 'local=1'
unset multiplot
reset
set grid ytics
set terminal svg size 1200,450
set output 'sqrtio.svg'
set multiplot layout 1,2
set xlabel 'rq_affinity' noenhanced
set title 'sqrt work' noenhanced
set ylabel 'M sqrt/s' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'sqrtio_sqrt.dat' using 2:3:4:xtic(1) title 'local=1'
set title '4 KiB O_DIRECT reads' noenhanced
set ylabel 'K ios/s' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'sqrtio_io.dat' using 2:3:4:xtic(1) title 'local=1'
unset multiplot
unset output
reset
