#!/usr/bin/env python3
"""A webhook receiver for the benches: answers 204 to every POST and counts them; GET /count
says how many arrived. Usage: receiver.py PORT (runs until killed)."""
import http.server
import sys
import threading

count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        global count
        n = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(n)
        with lock:
            count += 1
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        with lock:
            body = str(count).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
