#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Validate results.json files against docs/results.schema.json.

    validate_json.py SCHEMA FILE...   exit 0 when every file is valid, 1 otherwise,
                                      4 when python3-jsonschema is missing
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("validate_json: python3-jsonschema is missing (apt-get install python3-jsonschema)",
          file=sys.stderr)
    sys.exit(4)


def main(argv):
    with open(argv[1]) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:5]:
            print(f"{path}: {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
