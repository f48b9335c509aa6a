"""timed.py LIMIT CMD... - run CMD, then print "rc N prompt" if it took
less than LIMIT seconds, else "rc N slow SECONDS"."""
import subprocess
import sys
import time

limit = float(sys.argv[1])
t0 = time.monotonic()
rc = subprocess.run(sys.argv[2:]).returncode
d = time.monotonic() - t0
sys.stdout.flush()
print("rc %d %s" % (rc, "prompt" if d < limit else "slow %.3f" % d))
