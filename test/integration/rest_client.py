#!/usr/bin/env python3
"""What the REST tests ask of shoalrestd with Python's own HTTP client (urllib), as a portal
would, and the tokens no controller would mint (expired, forged). Prints JSON on stdout; exits
non-zero with the reason on stderr when something is not as it should be.

  rest_client.py token KEYFILE USER EXP_OFFSET      a token signed with KEYFILE's key
  rest_client.py forged USER                        a token signed with another key
  rest_client.py round-trip URL TOKEN DIR           submit, watch to completion, list
  rest_client.py load URL TOKEN DIR CLIENTS REQUESTS  CLIENTS threads sending REQUESTS in all
  rest_client.py openapi ROOT TOKEN JOB NODE PARTITION  the document at ROOT/openapi/v3 checked
      against the OpenAPI 3.0 schema (Debian's openapi-specification), then every operation it
      lists called, each answer checked against the schema the document gives it
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_token(key, user, exp_offset):
    now = int(time.time())
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = b64url(json.dumps({"exp": now + exp_offset, "iat": now, "sun": user}).encode())
    signed = (header + "." + claims).encode()
    return header + "." + claims + "." + b64url(hmac.new(key, signed, hashlib.sha256).digest())


# The tests reach 127.0.0.1 only: no proxy from the environment may stand in between.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def call(url, token, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if token:
        req.add_header("X-SLURM-USER-TOKEN", token)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with OPENER.open(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def submit(base, token, directory, script, name):
    status, answer = call(base + "/job/submit", token, "POST", {
        "job": {"name": name, "current_working_directory": directory, "tasks": 1,
                "environment": ["PATH=/usr/bin:/bin"], "script": script}})
    if status != 200 or not answer.get("job_id"):
        sys.exit("submit: %d %s" % (status, answer.get("errors")))
    return answer["job_id"]


def round_trip(base, token, directory):
    job_id = submit(base, token, directory, "#!/bin/sh\necho hello from urllib\n", "urllib")
    deadline = time.time() + 60
    state = ""
    while time.time() < deadline:
        status, answer = call(base + "/job/%d" % job_id, token)
        if status != 200:
            sys.exit("job: %d %s" % (status, answer.get("errors")))
        state = answer["jobs"][0]["job_state"][0]
        if state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL"):
            break
        time.sleep(0.2)
    status, listing = call(base + "/jobs", token)
    listed = [j["job_id"] for j in listing.get("jobs", [])]
    print(json.dumps({"job_id": job_id, "state": state, "listed": job_id in listed}))


def load(base, token, directory, clients, requests):
    """Every fifth request a submission, the rest listings and pings, spread over `clients`
    threads; reports each submission's id and every status seen."""
    lock = threading.Lock()
    ids, statuses, failures = [], {}, []
    submissions = [0]
    per_client = requests // clients
    extra = requests % clients

    def client(n, count):
        for i in range(count):
            try:
                if i % 5 == 0:
                    with lock:
                        submissions[0] += 1
                    job_id = submit(base, token, directory, "#!/bin/sh\ntrue\n", "load%d" % n)
                    with lock:
                        ids.append(job_id)
                        statuses[200] = statuses.get(200, 0) + 1
                    continue
                path = "/jobs" if i % 5 in (1, 2) else "/ping" if i % 5 == 3 else "/nodes"
                status, _ = call(base + path, token)
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
            except BaseException as e:  # noqa: B902 - a lost request is what this looks for
                with lock:
                    failures.append(repr(e))

    started = time.time()
    threads = [threading.Thread(target=client, args=(n, per_client + (1 if n < extra else 0)))
               for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.time() - started
    print(json.dumps({"ids": ids, "submissions": submissions[0], "statuses": {str(k): v for k, v in statuses.items()},
                      "failures": failures, "seconds": elapsed,
                      "requests_per_second": requests / elapsed if elapsed > 0 else 0}))


def check_openapi(root, token, job_id, node, partition, reservation):
    import jsonschema  # Debian's python3-jsonschema

    status, doc = call(root + "/openapi/v3", "")
    if status != 200:
        sys.exit("openapi/v3: %d" % status)
    with open("/usr/share/openapi-specification/schemas/v3.0/schema.json") as f:
        oas = json.load(f)
    problems = ["document: %s at %s" % (e.message, list(e.absolute_path))
                for e in jsonschema.Draft4Validator(oas).iter_errors(doc)]
    bodies = {
        "/job/submit": {"job": {"script": "#!/bin/sh\ntrue\n", "current_working_directory": "/tmp",
                                "environment": ["PATH=/bin"]}},
        "/job/{job_id}": {"job": {"comment": "openapi check"}},
        "/node/{node_name}": {"reason": "openapi check", "state": "DRAIN"},
    }
    checked = []
    # DELETE last: it cancels the job the others look at.
    order = {"get": 0, "post": 1, "delete": 2}
    operations = sorted(((path, method, op) for path, methods in doc["paths"].items()
                         for method, op in methods.items()), key=lambda o: order[o[1]])
    for path, method, op in operations:
        short = path.split("/", 3)[3] if path.count("/") >= 3 else path
        short = "/" + short
        url = root + path.replace("{job_id}", str(job_id)).replace(
            "{node_name}", node).replace("{partition_name}", partition).replace(
            "{reservation_name}", reservation)
        status, answer = call(url, token, method.upper(), bodies.get(short) if method == "post"
                              else None)
        name = "%s %s" % (method.upper(), path)
        checked.append(name)
        if status != 200:
            problems.append("%s: %d %s" % (name, status, answer.get("errors")))
            continue
        schema = dict(op["responses"]["200"]["content"]["application/json"]["schema"])
        schema["components"] = doc["components"]
        for e in jsonschema.Draft4Validator(schema).iter_errors(answer):
            problems.append("%s: %s at %s" % (name, e.message[:200], list(e.absolute_path)))
    call(root + "/slurm/v0.0.41/node/" + node, token, "POST", {"state": "RESUME"})
    print(json.dumps({"checked": checked, "problems": problems}))


def main():
    what = sys.argv[1]
    if what == "token":
        with open(sys.argv[2], "rb") as f:
            key = f.read()
        print(make_token(key, sys.argv[3], int(sys.argv[4])))
    elif what == "forged":
        print(make_token(os.urandom(32), sys.argv[2], 3600))
    elif what == "round-trip":
        round_trip(sys.argv[2], sys.argv[3], sys.argv[4])
    elif what == "load":
        load(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
    elif what == "openapi":
        check_openapi(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6],
                      sys.argv[7])
    else:
        sys.exit("unknown command " + what)


if __name__ == "__main__":
    main()
