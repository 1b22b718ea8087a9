# settings of chart counter-memmove_transport_input, for bars.gp; written by ipsecperf report
datafile = 'counter-memmove_transport_input'.'.dat'
outfile = 'counter-memmove_transport_input'
title = 'memmove_transport_input per packet sent: median, whiskers min-max'
ylabel = 'events per packet sent'
nk = 2
kernels = '6.1.0-57-cloud-amd64 6.12.117+deb12-cloud-amd64'
