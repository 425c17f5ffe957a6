fio --name=is --filename=/var/tmp/zk-fio/i.img --size=16M --rw=write --bs=64k --ioengine=psync --idle-prof=system --output-format=json+,normal,terse
rc=0
