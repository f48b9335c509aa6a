"""view_page.py - what the checks of `vigil view` pages (view_check.py,
view_timeline.py) do alike in the page: choose a thread as a user would,
and end the check with the page's errors and the problems found."""

import json
import sys

CHOOSE_THREAD = """(function (tid) { var s = document.getElementById('thread');
  for (var i = 0; i < s.options.length; i++)
    if (s.options[i].textContent.split(' ')[1] === tid) {
      s.value = s.options[i].value; s.dispatchEvent(new Event('change')); return true; }
  return false; })(%s)"""


def choose_thread(tab, tid, bad):
    """Picks thread tid in the page's thread filter; a problem if none."""
    if not tab.eval(CHOOSE_THREAD % json.dumps(tid)):
        bad.append("no thread %s to choose" % tid)


def finish(browser, bad):
    """Ends the check: an exception the page threw is a problem too; one
    line per problem, exit 1 if any."""
    errors = [m for m in browser.events
              if m.get("method") == "Runtime.exceptionThrown"]
    if errors:
        bad.append("the page threw: %s" % errors[0]["params"]["exceptionDetails"])
    browser.close()
    for x in bad:
        print("problem: " + x)
    sys.exit(1 if bad else 0)
