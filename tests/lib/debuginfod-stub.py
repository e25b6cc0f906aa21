#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in debuginfod server for the host tests: serves DIR over HTTP on
127.0.0.1 only, so DIR/buildid/<hex>/debuginfo and .../executable answer as
a debuginfod server's would (404 for anything else). Writes the port it got
to PORTFILE and every path asked for to LOG, one line a request (the tests
count them). Stops by itself after SECONDS or MAX_REQUESTS requests,
whichever comes first.

    debuginfod-stub.py DIR PORTFILE LOG [SECONDS [MAX_REQUESTS]]
"""
import functools
import os
import http.server
import sys
import threading


def main():
    root, portfile, log = sys.argv[1:4]
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 120
    max_requests = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
    served = [0]

    class Handler(http.server.SimpleHTTPRequestHandler):
        # a 404 goes through log_error() and log_request(): only the latter counts
        def log_message(self, fmt, *args):
            pass

        def log_request(self, code="-", size="-"):
            with open(log, "a") as out:
                out.write(self.path + "\n")
            served[0] += 1
            if served[0] >= max_requests:
                threading.Thread(target=self.server.shutdown).start()

    handler = functools.partial(Handler, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    timer = threading.Timer(seconds, server.shutdown)
    timer.daemon = True
    timer.start()
    with open(portfile + ".tmp", "w") as out:
        out.write("%d\n" % server.server_address[1])
    # the port file appears whole
    os.rename(portfile + ".tmp", portfile)
    server.serve_forever()
    server.server_close()


if __name__ == "__main__":
    main()
