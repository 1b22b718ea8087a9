# settings of chart counter-esp_output_tail, for bars.gp; written by ipsecperf report
datafile = 'counter-esp_output_tail'.'.dat'
outfile = 'counter-esp_output_tail'
title = 'esp_output_tail per packet sent: median, whiskers min-max'
ylabel = 'events per packet sent'
nk = 2
kernels = '6.1.0-57-cloud-amd64 6.12.117+deb12-cloud-amd64'
