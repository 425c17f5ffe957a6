fio --name=k --filename=/dev/shm/zk-fio/a.img --size=4000k --rw=randwrite --bs=4k --ioengine=io_uring --iodepth=2 --lat_percentiles=1 --slat_percentiles=1 --percentile_list=0.1:1:10:30:60:70:90:99:99.8:99.9:99.99:100 --output-format=json+,normal,terse
rc=0
