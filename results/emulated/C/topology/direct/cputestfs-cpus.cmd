cputestfs --format csv --duration 0.3 --repeat 1 --cpus 2,4-5 --placement none,same,smt,llc,cross-llc,cross-node,other
