# settings of chart time-g6, for timeseries.gp; written by ipsecperf report
datafile = 'time-g6'.'.dat'
outfile = 'time-g6'
title = 'Throughput over time (1 s intervals): 6.12.118+deb12-cloud-amd64, no-tso'
array subtitle[8]
subtitle[1] = 'kernels 6.1.0-57-cloud-amd64, 6.12.118+deb12-cloud-amd64 on vm, vm, accelerator tcg (emulated CPU: compare'
subtitle[2] = 'ratios, not absolute figures)'
nsubtitle = 2
nr = 8
array rlabel[nr]
rlabel[1] = 'repeat 1'
rlabel[2] = 'repeat 2'
rlabel[3] = 'repeat 3'
rlabel[4] = 'repeat 4'
rlabel[5] = 'repeat 5'
rlabel[6] = 'repeat 6'
rlabel[7] = 'repeat 7'
rlabel[8] = 'repeat 8'
