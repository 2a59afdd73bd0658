// A webhook receiver for the integration tests: verifies every delivery with the
// standardwebhooks npm package (the reference implementation a user would run) and appends one
// JSON line per request to LOGFILE. Behaviour per path is set by POST /_control:
//   {"secrets": {"/a": ["whsec_..."]},              verify /a with each secret
//    "modes": {"/a": {"status": 503,                  answer this status (default 200)
//                     "seq": [503, 200],              or these, one per request, then status
//                     "headers": {"Retry-After": "2"},
//                     "hang": 1}}}                    never answer the next N requests
// usage: node webhook_receiver.js PORT LOGFILE   (writes LOGFILE.ready when listening)
"use strict";
const http = require("http");
const fs = require("fs");
const { Webhook } = require("standardwebhooks");

const port = Number(process.argv[2]);
const logPath = process.argv[3];
const secrets = {};
const modes = {};

function verify(secret, body, headers) {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch (e) {
    return false;
  }
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const path = req.url.split("?")[0];
    if (path === "/_control") {
      const c = JSON.parse(body);
      Object.assign(secrets, c.secrets || {});
      Object.assign(modes, c.modes || {});
      res.end("ok");
      return;
    }
    const mode = modes[path] || {};
    const entry = {
      path,
      method: req.method,
      id: req.headers["webhook-id"],
      ts: Number(req.headers["webhook-timestamp"]),
      sig: req.headers["webhook-signature"],
      ua: req.headers["user-agent"],
      ct: req.headers["content-type"],
      at: Date.now(),
      verified: (secrets[path] || []).map((s) => verify(s, body, req.headers)),
      body,
    };
    if (mode.hang > 0) {
      mode.hang--;
      entry.status = "hang";
      fs.appendFileSync(logPath, JSON.stringify(entry) + "\n");
      return; // never answered
    }
    const status = mode.seq && mode.seq.length ? mode.seq.shift() : mode.status || 200;
    entry.status = status;
    fs.appendFileSync(logPath, JSON.stringify(entry) + "\n");
    res.writeHead(status, Object.assign({ "Content-Type": "text/plain" }, mode.headers || {}));
    res.end(mode.body || "ok " + status);
  });
});
server.keepAliveTimeout = 60000;
server.listen(port, "127.0.0.1", () => fs.writeFileSync(logPath + ".ready", String(port)));
process.on("SIGTERM", () => process.exit(0));
