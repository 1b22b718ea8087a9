# settings of chart time-g4, for timeseries.gp; written by ipsecperf report
datafile = 'time-g4'.'.dat'
outfile = 'time-g4'
title = 'Throughput over time (1 s intervals): 6.1.0-57-cloud-amd64, esp-null'
array subtitle[8]
subtitle[1] = 'kernels 6.1.0-57-cloud-amd64, 6.12.118+deb12-cloud-amd64 on vm, vm, accelerator tcg (emulated CPU: compare'
subtitle[2] = 'ratios, not absolute figures)'
nsubtitle = 2
nr = 9
array rlabel[nr]
rlabel[1] = 'repeat 1'
rlabel[2] = 'repeat 1'
rlabel[3] = 'repeat 2'
rlabel[4] = 'repeat 3'
rlabel[5] = 'repeat 4'
rlabel[6] = 'repeat 5'
rlabel[7] = 'repeat 6'
rlabel[8] = 'repeat 7'
rlabel[9] = 'repeat 8'
