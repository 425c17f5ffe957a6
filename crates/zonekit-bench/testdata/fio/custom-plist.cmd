fio --name=pl --filename=/dev/shm/zk-fio/a.img --size=128M --rw=randread --bs=4k --ioengine=psync --percentile_list=1:25:50:75:90:99:99.5:99.9:99.99:99.999:100 --output-format=json+,normal,terse
