# settings of chart throughput, for bars.gp; written by ipsecperf report
datafile = 'throughput'.'.dat'
outfile = 'throughput'
title = 'Throughput (receiver): median, whiskers min-max'
ylabel = 'Gbit/s'
nk = 2
kernels = '6.1.0-57-cloud-amd64 6.12.117+deb12-cloud-amd64'
