fio --name=cp --filename=/dev/shm/zk-fio/c.img --size=16M --rw=randrw --bs=4k --ioengine=io_uring --iodepth=4 --cmdprio_percentage=30 --output-format=json+,normal,terse
rc=0
