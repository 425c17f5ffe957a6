fio --name=pw --filename=/dev/shm/zk-fio/a.img --size=256M --rw=randwrite --bs=4k --ioengine=psync --time_based --runtime=2 --output-format=json+,normal,terse
