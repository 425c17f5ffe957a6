fio jobfile.fio --output-format=json+,normal,terse
