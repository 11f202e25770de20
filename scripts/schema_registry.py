#!/usr/bin/env python3
"""A Schema Registry STAND-IN for lowwater's tests (not Confluent's server).

Confluent's Schema Registry is not served by the package registries this
project builds from, so the tests run this small server instead. It follows
Confluent's documented REST API for the calls clients make
(https://docs.confluent.io/platform/current/schema-registry/develop/api.html):

  GET  /schemas/ids/{id}                    -> {"schema": "..."}
  POST /subjects/{subject}/versions         -> {"id": N}  (same schema: same id)
  POST /subjects/{subject}                  -> {"subject", "id", "version", "schema"}
  GET  /subjects                            -> ["..."]
  GET  /subjects/{subject}/versions         -> [1, 2]
  GET  /subjects/{subject}/versions/{v|latest}
  GET  /config                              -> {"compatibilityLevel": "BACKWARD"}

Errors are {"error_code": 40403, "message": "..."} with HTTP 404 (40401 for
an unknown subject), as Confluent's server answers. Query parameters
(normalize, fetchMaxId, subject, format) are accepted and ignored. With
--user NAME:PASSWORD every call needs that HTTP basic auth (else 401).
Schemas are compared by their parsed JSON, so whitespace does not matter.

Usage: schema_registry.py [--port N] [--user NAME:PASSWORD]
Prints "listening on PORT" once it accepts connections.
"""
import argparse
import base64
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

LOCK = threading.Lock()
SCHEMAS = []  # id - 1 -> (canonical, text, schemaType)
SUBJECTS = {}  # subject -> [id, ...] in version order


def canonical(text):
    try:
        return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    except ValueError:
        return text


class Handler(BaseHTTPRequestHandler):
    user = None

    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        if self.user is None:
            return True
        want = "Basic " + base64.b64encode(self.user.encode()).decode()
        if self.headers.get("Authorization") == want:
            return True
        self.reply(401, {"error_code": 401, "message": "Unauthorized"})
        return False

    def parts(self):
        return [unquote(p) for p in urlsplit(self.path).path.strip("/").split("/") if p]

    def version_body(self, subject, version, sid):
        _, text, stype = SCHEMAS[sid - 1]
        body = {"subject": subject, "version": version, "id": sid, "schema": text}
        if stype != "AVRO":
            body["schemaType"] = stype
        return body

    def do_GET(self):
        if not self.authorized():
            return
        p = self.parts()
        with LOCK:
            if len(p) == 3 and p[:2] == ["schemas", "ids"] and p[2].isdigit():
                sid = int(p[2])
                if 1 <= sid <= len(SCHEMAS):
                    _, text, stype = SCHEMAS[sid - 1]
                    body = {"schema": text}
                    if stype != "AVRO":
                        body["schemaType"] = stype
                    return self.reply(200, body)
                return self.reply(404, {"error_code": 40403, "message": f"Schema {sid} not found"})
            if p == ["subjects"]:
                return self.reply(200, sorted(SUBJECTS))
            if p == ["config"]:
                return self.reply(200, {"compatibilityLevel": "BACKWARD"})
            if len(p) >= 3 and p[0] == "subjects" and p[2] == "versions":
                ids = SUBJECTS.get(p[1])
                if ids is None:
                    return self.reply(404, {"error_code": 40401, "message": f"Subject '{p[1]}' not found."})
                if len(p) == 3:
                    return self.reply(200, list(range(1, len(ids) + 1)))
                v = len(ids) if p[3] in ("latest", "-1") else int(p[3]) if p[3].isdigit() else 0
                if 1 <= v <= len(ids):
                    return self.reply(200, self.version_body(p[1], v, ids[v - 1]))
                return self.reply(404, {"error_code": 40402, "message": f"Version {p[3]} not found."})
        self.reply(404, {"error_code": 404, "message": f"no route {self.path}"})

    def do_POST(self):
        if not self.authorized():
            return
        p = self.parts()
        length = int(self.headers.get("Content-Length") or 0)
        try:
            req = json.loads(self.rfile.read(length) or b"{}")
            text = req["schema"]
        except (ValueError, KeyError):
            return self.reply(422, {"error_code": 42201, "message": "Invalid schema"})
        stype = req.get("schemaType", "AVRO")
        canon = canonical(text)
        with LOCK:
            found = next((i + 1 for i, s in enumerate(SCHEMAS) if s[0] == canon and s[2] == stype), None)
            if len(p) == 3 and p[0] == "subjects" and p[2] == "versions":
                if found is None:
                    SCHEMAS.append((canon, text, stype))
                    found = len(SCHEMAS)
                ids = SUBJECTS.setdefault(p[1], [])
                if found not in ids:
                    ids.append(found)
                return self.reply(200, {"id": found})
            if len(p) == 2 and p[0] == "subjects":
                ids = SUBJECTS.get(p[1])
                if ids is None:
                    return self.reply(404, {"error_code": 40401, "message": f"Subject '{p[1]}' not found."})
                if found in ids:
                    return self.reply(200, self.version_body(p[1], ids.index(found) + 1, found))
                return self.reply(404, {"error_code": 40403, "message": "Schema not found"})
        self.reply(404, {"error_code": 404, "message": f"no route {self.path}"})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--user", default=None)
    args = ap.parse_args()
    Handler.user = args.user
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
