# regenerate with: gnuplot ddpar_timereq.gp (in this directory)
set encoding utf8
set grid ytics
set terminal pngcairo size 900,500
set output 'ddpar_timereq.png'
set logscale x 2
set xlabel 'dd processes (N)'
set ylabel 'ms per request (kernel_us_per_req)'
set title 'ddpar: time per request (writes)'
set key top left noenhanced
plot 'ddpar_timereq.dat' using 1:2 with linespoints title 'without clone\_fd', '' using 1:3 with linespoints title 'with clone\_fd'
set terminal svg size 900,500
set output 'ddpar_timereq.svg'
set logscale x 2
set xlabel 'dd processes (N)'
set ylabel 'ms per request (kernel_us_per_req)'
set title 'ddpar: time per request (writes)'
set key top left noenhanced
plot 'ddpar_timereq.dat' using 1:2 with linespoints title 'without clone\_fd', '' using 1:3 with linespoints title 'with clone\_fd'
