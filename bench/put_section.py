#!/usr/bin/env python3
"""Puts a generated Markdown section into a page between its markers (appended the first time), so that the
benchmark scripts that measure one table each can refresh it without touching the rest of the page.

Usage: put_section.py PAGE SECTION_FILE NAME SCRIPT
  markers: <!-- NAME: begin (SCRIPT) --> ... <!-- NAME: end -->
"""
import sys


def main():
    page, section_file, name, script = sys.argv[1:5]
    section = open(section_file).read()
    text = open(page).read()
    begin, end = f"<!-- {name}: begin ({script}) -->", f"<!-- {name}: end -->"
    block = begin + "\n" + section + end
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    open(page, "w").write(text)


if __name__ == "__main__":
    main()
