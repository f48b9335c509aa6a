# live_lock.py FILE - makes FILE (it must not exist) as a writer of
# vigil's makes a file in progress: created exclusively and held under an
# OFD read lock of the whole file; prints "ready" and holds the lock until
# its stdin closes.  Run in a pid namespace of its own, it is a writer in
# progress that no pid of the host's names.
import fcntl
import os
import struct
import sys

fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
# struct flock: l_type, l_whence, l_start, l_len (0: to the end), l_pid.
fcntl.fcntl(fd, fcntl.F_OFD_SETLK,
            struct.pack("hhqqi4x", fcntl.F_RDLCK, os.SEEK_SET, 0, 0, 0))
print("ready", flush=True)
sys.stdin.read()
