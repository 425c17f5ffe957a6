fio --name=fs --filename=/var/tmp/zk-fio/fs.img --size=8M --rw=write --bs=4k --ioengine=psync --fsync=32 --output-format=json+,normal,terse
