# settings of chart counter-skb_segment, for bars.gp; written by ipsecperf report
datafile = 'counter-skb_segment'.'.dat'
outfile = 'counter-skb_segment'
title = 'skb_segment per packet sent: median, whiskers min-max'
ylabel = 'events per packet sent'
nk = 2
kernels = '6.1.0-57-cloud-amd64 6.12.117+deb12-cloud-amd64'
