# settings of chart counter-memmove_transport_output, for bars.gp; written by ipsecperf report
datafile = 'counter-memmove_transport_output'.'.dat'
runsfile = 'counter-memmove_transport_output'.'.runs.dat'
outfile = 'counter-memmove_transport_output'
title = 'memmove_transport_output per packet sent: median, whiskers its interval'
array subtitle[8]
subtitle[1] = 'kernels 6.1.0-57-cloud-amd64, 6.12.118+deb12-cloud-amd64 on vm, vm, accelerator tcg (emulated CPU: compare'
subtitle[2] = 'ratios, not absolute figures)'
nsubtitle = 2
ylabel = 'events per packet sent'
logscale = 0
nk = 2
array kernel[nk]
kernel[1] = '6.1.0-57-cloud-amd64'
kernel[2] = '6.12.118+deb12-cloud-amd64'
ns = 4
array label[ns]
label[1] = 'clear (n=0)'
label[2] = 'no-tso (n=0)'
label[3] = 'no-gso (n=0)'
label[4] = 'esp-null (n=1)'
