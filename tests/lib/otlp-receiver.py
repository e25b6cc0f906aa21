# SPDX-License-Identifier: GPL-2.0
"""An OTLP/HTTP profiles receiver for tests/host/flame-export.sh:

  otlp-receiver.py MODULE_DIR PORT PORTFILE LOG [PLAN]

Serves POST /v1development/profiles on 127.0.0.1:PORT (0: any free port),
writes the port to PORTFILE once it listens, and decodes every body as an
ExportProfilesServiceRequest with the module protoc --python_out made from
flamegraph/proto/otlp-profiles.proto (in MODULE_DIR; Debian's
python3-protobuf). Each export it takes is appended to LOG: a line
"export EVENTS", then its stacks as folded lines "comm;outermost;...;leaf
COUNT". PLAN is a comma-separated list, one word per request in turn (the
rest: ok): ok (decode and take it), 503 or 400 (answer that, take
nothing), partial (answer 200 with a partial success that rejects the
profile), garbage (answer bytes that are not HTTP), short (answer 200 with
a body shorter than its Content-Length), close (close the connection without an answer), exit (exit the
process without an answer, as a receiver that crashes), hold (read the
request, append a line "held" to LOG, and never answer: the sender waits
until its timeout or until the process is killed; the requests after it
wait unread).
"""
import http.server
import os
import sys
import time

sys.path.insert(0, sys.argv[1])
import otlp_profiles_pb2 as pb  # noqa: E402

PORT, PORTFILE, LOG = int(sys.argv[2]), sys.argv[3], sys.argv[4]
PLAN = sys.argv[5].split(",") if len(sys.argv) > 5 and sys.argv[5] else []
PATH = "/v1development/profiles"


def folded(req):
    """The request's stacks as folded lines with their counts of events."""
    d = req.dictionary
    s = d.string_table
    lines = {}
    for rp in req.resource_profiles:
        for sp in rp.scope_profiles:
            for p in sp.profiles:
                for sample in p.samples:
                    attrs = {}
                    for i in sample.attribute_indices:
                        a = d.attribute_table[i]
                        attrs[s[a.key_strindex]] = a.value
                    frames = []
                    for li in d.stack_table[sample.stack_index].location_indices:
                        for line in d.location_table[li].lines:
                            frames.append(s[d.function_table[line.function_index].name_strindex])
                    key = ";".join([attrs["thread.name"].string_value] + frames[::-1])
                    assert len(sample.timestamps_unix_nano) == len(sample.values)
                    lines[key] = lines.get(key, 0) + sum(sample.values)
    return lines


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        action = PLAN.pop(0) if PLAN else "ok"
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if action == "exit":
            os._exit(0)
        if action == "hold":
            with open(LOG, "a", encoding="utf-8") as log:
                log.write("held\n")
            while True:
                time.sleep(3600)
        if action == "close":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if action == "garbage":
            # not HTTP, then the connection closed
            self.wfile.write(b"\x00\xffHTTP/9 <script>\r\n\r\n")
            self.close_connection = True
            return
        if action == "short":
            # a body shorter than its Content-Length: the status stands
            self.send_response(200)
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            self.wfile.write(b"\x0a")
            self.close_connection = True
            return
        if action == "partial":
            # taken, and rejected whole in the answer's partial success
            res = pb.ExportProfilesServiceResponse()
            res.partial_success.rejected_profiles = 1
            res.partial_success.error_message = "too old for this receiver"
            data = res.SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if action in ("503", "400"):
            self.send_response(int(action))
            self.end_headers()
            return
        if self.path != PATH or self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_response(404)
            self.end_headers()
            return
        req = pb.ExportProfilesServiceRequest()
        try:
            req.ParseFromString(body)
            lines = folded(req)
        except Exception as e:  # a body we cannot read: refused, and said
            sys.stderr.write("bad export: %r\n" % e)
            self.send_response(400)
            self.end_headers()
            return
        with open(LOG, "a", encoding="utf-8") as log:
            log.write("export %d\n" % sum(lines.values()))
            for k in sorted(lines):
                log.write("%s %d\n" % (k, lines[k]))
        # an empty ExportProfilesServiceResponse: all taken
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", PORT), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write("%d\n" % server.server_address[1])
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
