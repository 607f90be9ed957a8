cputestfs --format csv --duration 0.3 --repeat 1 --clients 2 --placement none,same,smt,llc,cross-llc,cross-node,other
