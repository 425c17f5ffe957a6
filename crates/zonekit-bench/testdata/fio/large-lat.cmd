fio --name=big --filename=/var/tmp/zk-fio/big.img --size=512M --rw=write --bs=8M --direct=1 --ioengine=psync --lat_percentiles=1 --output-format=json+,normal,terse
