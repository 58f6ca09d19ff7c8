#!/usr/bin/env bash
# The Python package (pyproject.toml, python/threefold/): builds the wheel with maturin and zig (pinned in
# tests/harness/python/requirements-build.txt, installed into target/python-build-venv) as docs/python.md
# says, checks that it is manylinux_2_17 (auditwheel show, objdump -T), installs it into fresh venvs with
# no Rust on PATH — one with the duckdb and polars extras (versions of tests/requirements.txt), one
# without —, checks the module's type hints (mypy --strict) and runs tests/harness/python/test_package.py
# in them (the command, `python -m threefold`, the module against the CLI on a dataset moved after
# ingest, the missing extras' errors); then the worked example examples/draw-study.ipynb, executed in
# a venv of its own and checked against the report, and its HTML in Chromium; last, the README's
# Python quick start as written, from this checkout's root. Ends with `python package: N passed, M failed` (exit 1 if M > 0).
#
# Usage: bash tests/harness/python/run.sh
# Environment: PYTHON (default python3), to build the venvs with.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
# shellcheck source=tests/corpus.sh
source "$root/tests/corpus.sh"
python="${PYTHON:-python3}"
work="$root/target/python-test"
rm -rf "$work"
mkdir -p "$work"
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "  ok: $1"; }
fail() { failed=$((failed + 1)); echo "  FAILED: $1"; }

# maturin, pinned, in a venv of its own (kept between runs).
build_venv="$root/target/python-build-venv"
[ -x "$build_venv/bin/python" ] || "$python" -m venv "$build_venv"
"$build_venv/bin/pip" install --quiet --disable-pip-version-check -r tests/harness/python/requirements-build.txt

# The wheel as docs/python.md builds it: linked by zig (PyPI's ziglang) against glibc 2.17's
# symbols, so that it installs on older clusters too (RHEL/Rocky 8, Ubuntu 20.04, Debian 11 and
# before). Its own target folder under target/ (cargo builds for the glibc-versioned target there).
started=$EPOCHREALTIME
PATH="$build_venv/bin:$PATH" CARGO_TARGET_DIR="$root/target" "$build_venv/bin/maturin" build --release \
  --locked --zig --compatibility manylinux_2_17 --interpreter "$python" --out "$work/wheels" \
  > "$work/maturin.log" 2>&1 ||
  { cat "$work/maturin.log"; echo "python package: maturin build failed"; exit 1; }
seconds=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
wheel="$(ls "$work/wheels"/threefold-*.whl)"
printf 'python package: wheel %s (%s KiB) built in %s s\n' "$(basename "$wheel")" \
  "$(( $(stat -c %s "$wheel") / 1024 ))" "$seconds"
case "$(basename "$wheel")" in
  *manylinux_2_17*) pass "the wheel is tagged manylinux_2_17" ;;
  *) fail "the wheel is not tagged manylinux_2_17: $(basename "$wheel")" ;;
esac
# auditwheel reads the symbols the binary needs; objdump -T lists their glibc versions.
"$build_venv/bin/auditwheel" show "$wheel" > "$work/auditwheel.out" 2>&1 || true
if grep -q 'consistent with the following platform tag: "manylinux_2_17_x86_64"' <(tr '\n' ' ' < "$work/auditwheel.out"); then
  pass "auditwheel show: consistent with manylinux_2_17_x86_64"
else
  cat "$work/auditwheel.out"
  fail "auditwheel show does not accept the wheel as manylinux_2_17"
fi
rm -rf "$work/unpacked" && mkdir -p "$work/unpacked"
(cd "$work/unpacked" && "$python" -m zipfile -e "$wheel" .)
newest="$(objdump -T "$work/unpacked"/threefold-*.data/scripts/threefold | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -n 1)"
echo "python package: the wheel's binary needs glibc symbols up to $newest (objdump -T)"
if [ "$(printf '%s\n' "$newest" GLIBC_2.17 | sort -V | tail -n 1)" = GLIBC_2.17 ]; then
  pass "no glibc symbol above 2.17 ($newest)"
else
  fail "the wheel's binary needs $newest, above 2.17"
fi

# Fresh venvs, made and filled with a PATH without Rust (no ~/.cargo/bin, no $CARGO_HOME/bin).
norust=""
IFS=: read -ra dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  case "$d" in "" | */.cargo/bin | "${CARGO_HOME:-/nonexistent}/bin") continue ;; esac
  norust="${norust:+$norust:}$d"
done
if PATH="$norust" command -v cargo > /dev/null; then
  echo "python package: note: a system cargo is on PATH even without ~/.cargo/bin ($(PATH="$norust" command -v cargo))"
fi
for venv in full bare; do
  PATH="$norust" "$python" -m venv "$work/$venv"
done
# --only-binary: nothing is built from source, the wheel's executable is what runs.
PATH="$norust" "$work/full/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: \
  -c tests/requirements.txt "$wheel[duckdb,polars]"
PATH="$norust" "$work/bare/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: "$wheel"
if "$work/bare/bin/python" -c "import duckdb" 2> /dev/null || "$work/bare/bin/python" -c "import polars" 2> /dev/null; then
  fail "the venv without extras has duckdb or polars"
fi

# The module's type hints, against the duckdb and polars it was installed with.
if "$build_venv/bin/mypy" --strict --no-incremental --python-executable "$work/full/bin/python" \
     python/threefold > "$work/mypy.out" 2>&1; then
  pass "mypy --strict python/threefold"
else
  cat "$work/mypy.out"
  fail "mypy --strict python/threefold"
fi

# The module and the command, from outside the checkout (so `import threefold` is the installed one).
(cd "$work" && PATH="$norust" "$work/full/bin/python" "$root/tests/harness/python/test_package.py" \
   --samples "$root/data-samples" --work "$work/t" --bare-python "$work/bare/bin/python" \
   --cargo-toml "$root/Cargo.toml" > "$work/test_package.out" 2>&1) || true
cat "$work/test_package.out"
counts="$(tail -n 1 "$work/test_package.out")"
if [[ "$counts" =~ ^test_package:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
  passed=$((passed + BASH_REMATCH[1]))
  failed=$((failed + BASH_REMATCH[2]))
else
  fail "tests/harness/python/test_package.py did not finish"
fi

# The worked example, examples/draw-study.ipynb, executed by nbclient in a fresh venv of its own
# (the wheel with its extras, and what the notebook names: pyarrow, matplotlib; nbclient, ipykernel
# and nbconvert to run it): every cell without an error, its figures against the report's JSON
# (tests/harness/python/notebook.py), then its HTML in headless Chromium (boards and charts drawn,
# nothing clipped; target/notebook-screenshot.png) where Chromium is (the browser test installs it).
PATH="$norust" "$python" -m venv "$work/notebook"
PATH="$norust" "$work/notebook/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: \
  -c tests/requirements.txt -r tests/harness/python/requirements-notebook.txt "$wheel[duckdb,polars]"
if (cd "$work" && PATH="$norust" "$work/notebook/bin/python" "$root/tests/harness/python/notebook.py" \
      --notebook "$root/examples/draw-study.ipynb" --samples "$root/data-samples" --work "$work/nb" \
      --out "$work/notebook-out" > "$work/notebook.out" 2>&1); then
  pass "examples/draw-study.ipynb runs and shows the report's figures"
else
  fail "examples/draw-study.ipynb"
fi
grep -v '^\[IPKernelApp\] WARNING' "$work/notebook.out"
if command -v chromium > /dev/null && [ -x "$root/.venv/bin/python" ]; then
  if "$root/.venv/bin/python" tests/harness/browser/page.py "$work/notebook-out/draw-study.html" --width 1000 \
       --marks a8,e8 --screenshot "$root/target/notebook-screenshot.png" > "$work/notebook-page.out" 2>&1; then
    pass "the executed notebook in headless Chromium: $(cat "$work/notebook-page.out")"
  else
    cat "$work/notebook-page.out"
    fail "the executed notebook in headless Chromium"
  fi
else
  skipped "the notebook's look in Chromium" "no chromium (or no .venv) here"
fi

# The README's Python quick start, as written, from the checkout's root (it installs this
# checkout with pip: maturin again, from the same release build).
sed -n '/<!-- python-quickstart/,/^```$/p' README.md | sed '1,2d;$d' > "$work/python-quickstart.sh"
rm -rf .venv-threefold dataset-py
if bash -euo pipefail "$work/python-quickstart.sh" > "$work/python-quickstart.out" 2>&1 &&
   grep -q "lichess_db_standard_rated_2013-01-first300" "$work/python-quickstart.out"; then
  pass "the README's Python quick start runs as written"
else
  cat "$work/python-quickstart.out"
  fail "the README's Python quick start"
fi
rm -rf .venv-threefold dataset-py

echo "python package: $passed passed, $failed failed"
[ "$failed" = 0 ]
