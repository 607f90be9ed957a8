# regenerate with: gnuplot ddpar_transports.gp (in this directory)
set encoding utf8
set grid ytics
set terminal pngcairo size 1100,450
set output 'ddpar_transports.png'
set multiplot layout 1,2
set logscale x 2
set yrange [0:*]
set key top left noenhanced
set offsets graph 0.05, graph 0.05
set xlabel 'dd processes (N)' noenhanced
set ylabel 'MB/s' noenhanced
set title 'ddpar write by transport' noenhanced
plot 'ddpar_transports_write.dat' using 1:2:3:4 with yerrorlines title 'libfuse', 'ddpar_transports_write.dat' using 1:5:6:7 with yerrorlines title 'dev', 'ddpar_transports_write.dat' using 1:8:9:10 with yerrorlines title 'uring', 'ddpar_transports_write.dat' using 1:11:12:13 with yerrorlines title 'passthrough'
set title 'ddpar read by transport' noenhanced
plot 'ddpar_transports_read.dat' using 1:2:3:4 with yerrorlines title 'libfuse', 'ddpar_transports_read.dat' using 1:5:6:7 with yerrorlines title 'dev', 'ddpar_transports_read.dat' using 1:8:9:10 with yerrorlines title 'uring', 'ddpar_transports_read.dat' using 1:11:12:13 with yerrorlines title 'passthrough'
unset multiplot
reset
set grid ytics
set terminal svg size 1100,450
set output 'ddpar_transports.svg'
set multiplot layout 1,2
set logscale x 2
set yrange [0:*]
set key top left noenhanced
set offsets graph 0.05, graph 0.05
set xlabel 'dd processes (N)' noenhanced
set ylabel 'MB/s' noenhanced
set title 'ddpar write by transport' noenhanced
plot 'ddpar_transports_write.dat' using 1:2:3:4 with yerrorlines title 'libfuse', 'ddpar_transports_write.dat' using 1:5:6:7 with yerrorlines title 'dev', 'ddpar_transports_write.dat' using 1:8:9:10 with yerrorlines title 'uring', 'ddpar_transports_write.dat' using 1:11:12:13 with yerrorlines title 'passthrough'
set title 'ddpar read by transport' noenhanced
plot 'ddpar_transports_read.dat' using 1:2:3:4 with yerrorlines title 'libfuse', 'ddpar_transports_read.dat' using 1:5:6:7 with yerrorlines title 'dev', 'ddpar_transports_read.dat' using 1:8:9:10 with yerrorlines title 'uring', 'ddpar_transports_read.dat' using 1:11:12:13 with yerrorlines title 'passthrough'
unset multiplot
unset output
reset
