ddpar --format csv --duration 0.3 --repeat 1 --mode both
