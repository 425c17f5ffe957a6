#!/usr/bin/env python3
"""Compare the key sets of two fio JSON documents.

Usage: json-keys.py [options] FIO_JSON ZONEKIT_JSON

Every key that fio printed (FIO_JSON) must also be in zonekit's document (ZONEKIT_JSON).
Keys are compared as paths, e.g. jobs[0].write.clat_ns.percentile.99.000000; the buckets
under "bins" (json+) are run-dependent and compared as the one key "bins". Prints each
missing path and exits 1 if any is missing, 0 otherwise (2 on bad usage or input).

Either file may hold other text around the document (as with --output-format=json,normal):
the document is taken from the first line that is "{" to the next line that is "}".

Options:
  --any-index        merge array elements: jobs[].read.… instead of jobs[0].read.…
  --ignore REGEX     ignore paths matching REGEX (may be repeated)
  --show-extra       also list paths zonekit has and fio has not (informational)
"""

import json
import re
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines) if l == "{"), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if lines[i] == "}"), None)
        if end is not None:
            text = "\n".join(lines[start:end + 1])
    return json.loads(text)


def paths(value, prefix, any_index, out):
    if isinstance(value, dict):
        for key, child in value.items():
            p = f"{prefix}.{key}" if prefix else key
            out.add(p)
            if key != "bins":
                paths(child, p, any_index, out)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            p = f"{prefix}[]" if any_index else f"{prefix}[{i}]"
            out.add(p)
            paths(child, p, any_index, out)
    return out


def main(argv):
    any_index = False
    show_extra = False
    ignore = []
    files = []
    args = iter(argv)
    for a in args:
        if a == "--any-index":
            any_index = True
        elif a == "--show-extra":
            show_extra = True
        elif a == "--ignore":
            try:
                ignore.append(re.compile(next(args)))
            except StopIteration:
                print("json-keys: --ignore needs a regular expression", file=sys.stderr)
                return 2
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("--"):
            print(f"json-keys: unknown option {a}", file=sys.stderr)
            return 2
        else:
            files.append(a)
    if len(files) != 2:
        print("usage: json-keys.py [--any-index] [--ignore REGEX] [--show-extra] FIO_JSON ZONEKIT_JSON",
              file=sys.stderr)
        return 2
    try:
        fio, zk = (paths(load(f), "", any_index, set()) for f in files)
    except (OSError, ValueError) as e:
        print(f"json-keys: {e}", file=sys.stderr)
        return 2

    def kept(p):
        return not any(r.search(p) for r in ignore)

    missing = sorted(p for p in fio - zk if kept(p))
    for p in missing:
        print(f"missing: {p}")
    if show_extra:
        for p in sorted(p for p in zk - fio if kept(p)):
            print(f"extra: {p}")
    print(f"{len(fio)} keys in {files[0]}, {len(missing)} missing in {files[1]}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
