# regenerate with: gnuplot fdget.gp (in this directory)
set encoding utf8
set grid ytics
set terminal pngcairo size 1100,500
set output 'fdget.png'
set title 'fdget: ns per fd syscall' noenhanced
set ylabel 'ns/op' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'fdget.dat' using 2:3:4:xtic(1) title 'single', 'fdget.dat' using 5:6:7 title 'idle-thread', 'fdget.dat' using 8:9:10 title 'shared-fd'
reset
set grid ytics
set terminal svg size 1100,500
set output 'fdget.svg'
set title 'fdget: ns per fd syscall' noenhanced
set ylabel 'ns/op' noenhanced
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set key outside right top vertical noenhanced
set xtics nomirror noenhanced
plot 'fdget.dat' using 2:3:4:xtic(1) title 'single', 'fdget.dat' using 5:6:7 title 'idle-thread', 'fdget.dat' using 8:9:10 title 'shared-fd'
unset output
reset
