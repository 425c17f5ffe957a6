fio --name=lu --filename=/dev/shm/zk-fio/a.img --size=4M --rw=randrw --bs=4k --ioengine=psync --write_bw_log=lu --write_lat_log=lu --write_iops_log=lu --log_offset=1 --output-format=json+,normal,terse
rc=0
