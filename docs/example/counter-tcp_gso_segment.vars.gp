# settings of chart counter-tcp_gso_segment, for bars.gp; written by ipsecperf report
datafile = 'counter-tcp_gso_segment'.'.dat'
outfile = 'counter-tcp_gso_segment'
title = 'tcp_gso_segment per packet sent: median, whiskers min-max'
ylabel = 'events per packet sent'
nk = 2
kernels = '6.1.0-57-cloud-amd64 6.12.117+deb12-cloud-amd64'
