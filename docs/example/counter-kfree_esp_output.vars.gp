# settings of chart counter-kfree_esp_output, for bars.gp; written by ipsecperf report
datafile = 'counter-kfree_esp_output'.'.dat'
outfile = 'counter-kfree_esp_output'
title = 'kfree_esp_output per packet sent: median, whiskers min-max'
ylabel = 'events per packet sent'
nk = 2
kernels = '6.1.0-57-cloud-amd64 6.12.117+deb12-cloud-amd64'
