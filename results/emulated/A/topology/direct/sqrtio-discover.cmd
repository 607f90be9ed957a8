sqrtio --discover --file /mnt/disk/sqrtio.dat --span 8M
