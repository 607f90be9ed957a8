cputestfs --format csv --duration 0.3 --repeat 1 --placement same --kstats on
