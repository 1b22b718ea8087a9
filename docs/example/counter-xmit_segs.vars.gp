# settings of chart counter-xmit_segs, for bars.gp; written by ipsecperf report
datafile = 'counter-xmit_segs'.'.dat'
outfile = 'counter-xmit_segs'
title = 'xmit_segs per packet sent: median, whiskers min-max'
ylabel = 'events per packet sent'
nk = 2
kernels = '6.1.0-57-cloud-amd64 6.12.117+deb12-cloud-amd64'
