#!/bin/sh
# runtree.sh KID - a shell that forks and execs 200 instrumented children
# (runkid.c): 50 exit, 50 run two threads, 50 _exit, 49 exit and one is
# SIGKILLed; every tenth runs in the background while the loop goes on.
k=$1
i=0
while [ $i -lt 200 ]; do
	case $((i % 4)) in
	0) mode="exit 0" ;;
	1) mode=thread ;;
	2) mode=_exit ;;
	3) mode="exit 0"; [ $i = 103 ] && mode=kill ;;
	esac
	if [ $((i % 10)) = 0 ]; then
		"$k" $mode &
	else
		"$k" $mode 2>/dev/null
	fi
	i=$((i + 1))
done > /dev/null
wait
echo "200 children"
