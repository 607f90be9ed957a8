cputestfs --format csv --duration 0.3 --repeat 1 --cpus 1,4-6,12 --placement none,same,smt,llc,cross-llc,cross-node,other
