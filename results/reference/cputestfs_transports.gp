# regenerate with: gnuplot cputestfs_transports.gp (in this directory)
set encoding utf8
set grid ytics
set terminal pngcairo size 1000,500
set output 'cputestfs_transports.png'
set title 'cputestfs: stat() calls/s by FUSE transport' noenhanced
set ylabel 'stat/s' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'cputestfs_transports.dat' using 2:3:4:xtic(1) title 'libfuse', 'cputestfs_transports.dat' using 5:6:7 title 'dev', 'cputestfs_transports.dat' using 8:9:10 title 'uring'
reset
set grid ytics
set terminal svg size 1000,500
set output 'cputestfs_transports.svg'
set title 'cputestfs: stat() calls/s by FUSE transport' noenhanced
set ylabel 'stat/s' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'cputestfs_transports.dat' using 2:3:4:xtic(1) title 'libfuse', 'cputestfs_transports.dat' using 5:6:7 title 'dev', 'cputestfs_transports.dat' using 8:9:10 title 'uring'
unset output
reset
