fio --name=sep --filename=/dev/shm/zk-fio/a.img --size=32M --rw=read --bsrange=4k-64k --ioengine=psync --numjobs=2 --output-format=json+,normal,terse
