# settings of chart counter-xfrm_transport_output, for bars.gp; written by ipsecperf report
datafile = 'counter-xfrm_transport_output'.'.dat'
outfile = 'counter-xfrm_transport_output'
title = 'xfrm_transport_output per packet sent: median, whiskers min-max'
ylabel = 'events per packet sent'
nk = 2
kernels = '6.1.0-57-cloud-amd64 6.12.117+deb12-cloud-amd64'
