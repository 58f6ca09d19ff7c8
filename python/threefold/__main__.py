"""``python -m threefold ARGS...``: runs the bundled ``threefold`` command with ARGS.

The command's exit status is the interpreter's (on POSIX the process is replaced by it).
"""

from threefold import _main

if __name__ == "__main__":
    _main()
