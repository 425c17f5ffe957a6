fio --name=cb --filename=/dev/shm/zk-fio/c.img --size=16M --rw=randread --bssplit=4k/50:8k/50 --ioengine=libaio --iodepth=4 --lat_percentiles=1 --cmdprio_bssplit=4k/50/1/3:8k/20/2/5:8k/30 --output-format=json+,normal,terse
rc=0
