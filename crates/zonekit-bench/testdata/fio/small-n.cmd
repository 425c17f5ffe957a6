fio --name=sn --filename=/dev/shm/zk-fio/a.img --size=80k --rw=randread --bs=4k --ioengine=psync --percentile_list=5:10:15:20:25:30:35:40:45:50:55:60:65:70:75:80:85:90:95:100 --output-format=json+,normal,terse
rc=0
