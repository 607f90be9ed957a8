# regenerate with: gnuplot ddpar_timereq.gp (in this directory)
set encoding utf8
set grid ytics
set terminal pngcairo size 900,500
set output 'ddpar_timereq.png'
set logscale x 2
set yrange [0:*]
set key top left noenhanced
set offsets graph 0.05, graph 0.05
set xlabel 'dd processes (N)' noenhanced
set ylabel 'us per request (daemon_us_per_req)' noenhanced
set title 'ddpar: time per request (writes)' noenhanced
plot 'ddpar_timereq.dat' using 1:2:3:4 with yerrorlines title 'clone_fd off', 'ddpar_timereq.dat' using 1:5:6:7 with yerrorlines title 'clone_fd on'
reset
set grid ytics
set terminal svg size 900,500
set output 'ddpar_timereq.svg'
set logscale x 2
set yrange [0:*]
set key top left noenhanced
set offsets graph 0.05, graph 0.05
set xlabel 'dd processes (N)' noenhanced
set ylabel 'us per request (daemon_us_per_req)' noenhanced
set title 'ddpar: time per request (writes)' noenhanced
plot 'ddpar_timereq.dat' using 1:2:3:4 with yerrorlines title 'clone_fd off', 'ddpar_timereq.dat' using 1:5:6:7 with yerrorlines title 'clone_fd on'
unset output
reset
