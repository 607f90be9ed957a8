sqrtio --format csv --file /mnt/sq/sqrtio.dat --span 8M --duration 0.3 --repeat 1 --rq 1
