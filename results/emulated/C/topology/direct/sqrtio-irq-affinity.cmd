sqrtio --format csv --file /mnt/disk/sqrtio.dat --span 8M --duration 0.3 --repeat 1 --rq 1 --irq-affinity --cpus 2,4-5
