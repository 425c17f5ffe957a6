fio --name=bits --filename=/dev/shm/zk-fio/a.img --size=64M --rw=write --bs=128k --ioengine=psync --unit_base=1 --kb_base=1000 --output-format=json+,normal,terse
