ddpar --format csv --duration 0.3 --repeat 1 --procs 1 --kstats on
