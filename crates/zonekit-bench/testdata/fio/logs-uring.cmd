fio --name=lq --filename=/dev/shm/zk-fio/a.img --size=2M --rw=randwrite --bs=4k --ioengine=io_uring --iodepth=4 --write_bw_log=lq --write_lat_log=lq --write_iops_log=lq --output-format=json+,normal,terse
rc=0
