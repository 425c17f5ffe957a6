fio --name=ce --filename=/dev/shm/zk-fio/t.img --size=1M --rw=randtrim --bs=64k --ioengine=psync --continue_on_error=all --output-format=json+,normal,terse
rc=1
