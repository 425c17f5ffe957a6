fio --name=huge --filename=/var/tmp/zk-fio/big.img --size=1G --rw=write --bs=8M --direct=1 --ioengine=io_uring --iodepth=64 --output-format=json+,normal,terse
rc=0
