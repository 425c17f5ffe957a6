fio --name=tr --filename=/dev/shm/zk-fio/t.img --size=32M --rw=randtrim --bs=64k --ioengine=psync --percentile_list=50:99 --output-format=json+,normal,terse
rc=1
