# regenerate with: gnuplot ddpar.gp (in this directory)
set encoding utf8
set grid ytics
set terminal pngcairo size 1100,450
set output 'ddpar.png'
set multiplot layout 1,2
set logscale x 2
set yrange [0:*]
set key top left noenhanced
set offsets graph 0.05, graph 0.05
set xlabel 'dd processes (N)' noenhanced
set ylabel 'MB/s' noenhanced
set title 'ddpar write' noenhanced
plot 'ddpar_write.dat' using 1:2:3:4 with yerrorlines title 'clone_fd off', 'ddpar_write.dat' using 1:5:6:7 with yerrorlines title 'clone_fd on'
set title 'ddpar read' noenhanced
plot 'ddpar_read.dat' using 1:2:3:4 with yerrorlines title 'clone_fd off', 'ddpar_read.dat' using 1:5:6:7 with yerrorlines title 'clone_fd on'
unset multiplot
reset
set grid ytics
set terminal svg size 1100,450
set output 'ddpar.svg'
set multiplot layout 1,2
set logscale x 2
set yrange [0:*]
set key top left noenhanced
set offsets graph 0.05, graph 0.05
set xlabel 'dd processes (N)' noenhanced
set ylabel 'MB/s' noenhanced
set title 'ddpar write' noenhanced
plot 'ddpar_write.dat' using 1:2:3:4 with yerrorlines title 'clone_fd off', 'ddpar_write.dat' using 1:5:6:7 with yerrorlines title 'clone_fd on'
set title 'ddpar read' noenhanced
plot 'ddpar_read.dat' using 1:2:3:4 with yerrorlines title 'clone_fd off', 'ddpar_read.dat' using 1:5:6:7 with yerrorlines title 'clone_fd on'
unset multiplot
unset output
reset
