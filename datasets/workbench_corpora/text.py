"""Text clean-up shared by the corpus builders: control characters and line ends, mail and HTML to readable
text, what counts as a Chinese character, and counting characters as the app's loader does."""

import email
import email.header
import email.policy
import html.parser
import re
from pathlib import Path


CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_text(text):
    """UTF-8-safe text with '\\n' line ends, no control characters, no trailing spaces, <= 1 blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r".\x08", "", text)  # nroff overstrike ("_\bX" underline, "X\bX" bold) keeps the last char
    text = CONTROL_CHARS.sub("", text)
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")


class HtmlText(html.parser.HTMLParser):
    BLOCKS = {"p", "br", "div", "tr", "li", "h1", "h2", "h3", "h4", "table", "blockquote", "hr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_to_text(markup):
    parser = HtmlText()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # malformed spam HTML: keep what was parsed
        pass
    text = "".join(parser.parts)
    return "\n".join(re.sub(r"[ \t\xa0]+", " ", line).strip() for line in text.split("\n"))


def decode_bytes(data, charset=None):
    """Bytes of a mail part as text: its declared charset, else UTF-8 when valid, else Windows-1252 (what
    undeclared 8-bit mail of that era mostly is)."""
    if charset:
        try:
            return data.decode(charset, "replace")
        except LookupError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def header_text(value):
    """A header with RFC 2047 encoded words and/or raw 8-bit bytes (kept as surrogates by the parser)."""
    try:
        pieces = []
        for chunk, charset in email.header.decode_header(value):
            if isinstance(chunk, str):
                chunk = chunk.encode("utf-8", "surrogateescape")
            pieces.append(decode_bytes(chunk, charset))
        text = "".join(pieces)  # decode_header keeps the spaces around plain chunks in the chunks
    except Exception:
        text = decode_bytes(str(value).encode("utf-8", "surrogateescape"))
    return " ".join(text.split())


def email_to_text(raw):
    """Subject line plus the readable body (text/plain parts, else text/html turned into text); headers
    and attachments are dropped so that a classifier learns from what a reader sees. `raw` is the message's
    bytes (best: each part is decoded with its own charset) or an already decoded str."""
    if isinstance(raw, bytes):
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    else:
        msg = email.message_from_string(raw, policy=email.policy.compat32)
    subject = header_text(msg["Subject"]) if msg["Subject"] else ""
    plain, markup = [], []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_type() not in ("text/plain", "text/html"):
            continue
        if part.get_content_disposition() == "attachment":
            continue
        # decode=True undoes base64/quoted-printable and gives 8-bit bodies back as their original bytes
        body = part.get_payload(decode=True)
        if not isinstance(body, bytes):
            continue
        text = decode_bytes(body, part.get_content_charset())
        (plain if part.get_content_type() == "text/plain" else markup).append(text)
    body = "\n\n".join(plain) if plain else "\n\n".join(html_to_text(m) for m in markup)
    text = clean_text(body)
    return clean_text(f"Subject: {subject}\n\n{text}") if subject else text


IDEOGRAPH = "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]"
IDEOGRAPH_RE = re.compile(IDEOGRAPH)


LOADER_BLANKS = " \t\n\v\f"  # what loadCorpus trims from each document, so the counts agree with its stats


def characters_in_folder(folder):
    return sum(len(p.read_text(encoding="utf-8").strip(LOADER_BLANKS)) for p in Path(folder).rglob("*.txt"))
