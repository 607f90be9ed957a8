sqrtio --format csv --file /mnt/disk/sqrtio.dat --span 8M --duration 0.3 --repeat 1
