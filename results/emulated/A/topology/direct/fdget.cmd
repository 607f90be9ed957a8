fdget --format csv --op pread --mode all --duration 0.05 --repeat 2 --spawn 10
