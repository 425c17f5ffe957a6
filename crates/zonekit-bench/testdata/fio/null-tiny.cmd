fio --name=nul --ioengine=null --size=2G --rw=randread --bs=4k --output-format=json+,normal,terse
