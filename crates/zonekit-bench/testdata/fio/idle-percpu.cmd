fio --name=ip --filename=/dev/shm/zk-fio/a.img --size=16M --rw=randread --bs=4k --ioengine=psync --idle-prof=percpu --output-format=json+,normal,terse
rc=0
