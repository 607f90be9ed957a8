# regenerate with: gnuplot cputestfs.gp (in this directory)
set encoding utf8
set grid ytics
set terminal pngcairo size 1000,500
set output 'cputestfs.png'
set title 'cputestfs: stat() calls/s, libfuse' noenhanced
set ylabel 'stat/s' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'cputestfs.dat' using 2:3:4:xtic(1) title 'daemon single', 'cputestfs.dat' using 5:6:7 title 'daemon multi', 'cputestfs.dat' using 8:9:10 title 'daemon clone_fd'
reset
set grid ytics
set terminal svg size 1000,500
set output 'cputestfs.svg'
set title 'cputestfs: stat() calls/s, libfuse' noenhanced
set ylabel 'stat/s' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'cputestfs.dat' using 2:3:4:xtic(1) title 'daemon single', 'cputestfs.dat' using 5:6:7 title 'daemon multi', 'cputestfs.dat' using 8:9:10 title 'daemon clone_fd'
unset output
reset
