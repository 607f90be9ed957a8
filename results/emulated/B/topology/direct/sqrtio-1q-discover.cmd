sqrtio --discover --file /mnt/sq/sqrtio.dat --span 8M
