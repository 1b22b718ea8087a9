# settings of chart cycles_per_byte, for bars.gp; written by ipsecperf report
datafile = 'cycles_per_byte'.'.dat'
outfile = 'cycles_per_byte'
title = 'CPU cycles per byte received: median, whiskers min-max'
ylabel = 'cycles per byte'
nk = 2
kernels = '6.1.0-57-cloud-amd64 6.12.117+deb12-cloud-amd64'
