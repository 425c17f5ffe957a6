fio --name=ur --filename=/dev/shm/zk-fio/a.img --size=256M --rw=randread --bs=4k --ioengine=io_uring --iodepth=16 --direct=1 --time_based --runtime=2 --output-format=json+,normal,terse
