"""Results cache for stopping and resuming: one JSON object per line.

The first line is a header naming what the results depend on (generator binary, target, cases,
harness and timing settings); a file with another header is set aside as <file>.stale and a
fresh one started. Every measured candidate is appended as soon as it is known, so Ctrl-C loses
at most the candidate in flight.
"""
import json
import os


class State:
    def __init__(self, path, header):
        self.path = path
        self.results = {}
        if os.path.exists(path):
            with open(path) as f:
                lines = [json.loads(line) for line in f if line.strip()]
            if lines and lines[0].get("header") == header:
                for record in lines[1:]:
                    self.results[record["key"]] = record["result"]
            else:
                os.replace(path, path + ".stale")
        if not self.results and not os.path.exists(path):
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "w") as f:
                f.write(json.dumps({"header": header}) + "\n")

    def get(self, key):
        return self.results.get(key)

    def put(self, key, result):
        self.results[key] = result
        with open(self.path, "a") as f:
            f.write(json.dumps({"key": key, "result": result}) + "\n")
