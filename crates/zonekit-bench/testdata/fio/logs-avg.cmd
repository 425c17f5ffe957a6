fio --name=la --filename=/dev/shm/zk-fio/a.img --size=256M --rw=randrw --bs=4k --ioengine=psync --time_based --runtime=1 --rate_iops=2000 --write_bw_log=la --write_lat_log=la --write_iops_log=la --log_avg_msec=100 --output-format=json+,normal,terse
rc=0
