fio --name=um --filename=/dev/shm/zk-fio/a.img --size=64M --rw=randrw --bs=4k --ioengine=psync --time_based --runtime=1 --rate_iops=2000 --numjobs=2 --group_reporting --unified_rw_reporting=mixed --output-format=json+,normal,terse
rc=0
