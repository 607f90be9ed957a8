# regenerate with: gnuplot sqrtio.gp (in this directory)
set encoding utf8
set grid ytics
set terminal pngcairo size 1100,450
set output 'sqrtio.png'
set multiplot layout 1,2
set xlabel 'rq\_affinity'
set title 'sqrt work'
set ylabel 'M sqrt/s'
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key top left noenhanced
set xtics nomirror
plot 'sqrtio_sqrt.dat' using 2:3:4:xtic(1) title 'local=1', 'sqrtio_sqrt.dat' using 5:6:7 title 'local=0'
set title '4 KiB O\_DIRECT reads'
set ylabel 'K ios/s'
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key top left noenhanced
set xtics nomirror
plot 'sqrtio_io.dat' using 2:3:4:xtic(1) title 'local=1', 'sqrtio_io.dat' using 5:6:7 title 'local=0'
unset multiplot
set terminal svg size 1100,450
set output 'sqrtio.svg'
set multiplot layout 1,2
set xlabel 'rq\_affinity'
set title 'sqrt work'
set ylabel 'M sqrt/s'
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key top left noenhanced
set xtics nomirror
plot 'sqrtio_sqrt.dat' using 2:3:4:xtic(1) title 'local=1', 'sqrtio_sqrt.dat' using 5:6:7 title 'local=0'
set title '4 KiB O\_DIRECT reads'
set ylabel 'K ios/s'
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key top left noenhanced
set xtics nomirror
plot 'sqrtio_io.dat' using 2:3:4:xtic(1) title 'local=1', 'sqrtio_io.dat' using 5:6:7 title 'local=0'
unset multiplot
