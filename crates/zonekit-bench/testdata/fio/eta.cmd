fio --name=eta ... --eta=always --eta-newline=1
