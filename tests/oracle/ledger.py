"""The differential test's ledger of verified agreements (README.md "Ledger").

A comparison is a pure function of the oracle's sources, python-chess's version, the input's
bytes, the arguments, `compare.py` and the Rust records. When one such comparison found no
disagreement, its key and the lines `compare.py` closed with are kept in `verified.tsv` beside
this file, in the repository: a fresh clone on a fresh machine (no oracle cache) then skips the
python-chess run for every input whose Rust records are byte for byte the ones verified before.
A change to the Rust records, the input, the oracle or the comparison changes the key, and the
input is compared again in full.

    python3 ledger.py key FILE --records RUST.jsonl [--limit N]    prints the key
    python3 ledger.py get KEY                                      prints the stored lines, or
                                                                   exits 1 when KEY is absent
    python3 ledger.py put KEY NAME CMP.txt                         stores KEY with CMP.txt's
                                                                   closing lines (replacing
                                                                   older keys of NAME)
"""

import argparse
import hashlib
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
LEDGER = os.environ.get("THREEFOLD_ORACLE_LEDGER") or os.path.join(HERE, "verified.tsv")
# The lines of compare.py's output that differential.sh adds up.
KEPT = ("python-chess rules: ", "compared ")


def key(path, limit, records):
    import oracle  # the oracle's own cache key: its sources, python-chess, arguments, input

    h = hashlib.sha256(b"threefold-ledger 1\0")
    h.update(oracle.cache_key(path, limit, True).encode() + b"\0")
    with open(os.path.join(HERE, "compare.py"), "rb") as f:
        h.update(hashlib.sha256(f.read()).digest())
    with open(records, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read():
    rows = []
    if os.path.exists(LEDGER):
        with open(LEDGER, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
    return rows


def put(k, name, cmp_path):
    with open(cmp_path, encoding="utf-8") as f:
        kept = [line.rstrip("\n") for line in f if line.startswith(KEPT)]
    if len(kept) != 2 or not kept[-1].endswith(", 0 disagreements"):
        sys.exit(f"ledger.py: {cmp_path} does not close with an agreement: {kept}")
    rows = [r for r in read() if r[0] != k and r[1] != name]
    rows.append([k, name, *kept])
    rows.sort(key=lambda r: r[1])
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(LEDGER), prefix=".verified-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("# key\tinput\tcompare.py's closing lines (written by differential.sh; see README.md)\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    os.replace(tmp, LEDGER)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("key")
    k.add_argument("file")
    k.add_argument("--records", required=True)
    k.add_argument("--limit", type=int, default=None)
    g = sub.add_parser("get")
    g.add_argument("key")
    p = sub.add_parser("put")
    p.add_argument("key")
    p.add_argument("name")
    p.add_argument("cmp")
    args = ap.parse_args()
    if args.cmd == "key":
        print(key(args.file, args.limit, args.records))
    elif args.cmd == "get":
        for r in read():
            if r[0] == args.key:
                print("\n".join(r[2:]))
                return
        sys.exit(1)
    else:
        put(args.key, args.name, args.cmp)


if __name__ == "__main__":
    main()
