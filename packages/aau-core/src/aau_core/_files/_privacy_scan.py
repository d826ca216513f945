"""The sensitive-data scan: validated patterns, few false alarms (one copy for every package).

Public outputs (a community-evidence submission, an impact capsule, the labels a review report
binds) must not carry personal data, secrets or classification markings. The scan looks for common shapes of them in text and *validates* each candidate before it reports
it, so ordinary numbers in a suite (docket numbers, long decimals, ids, timestamps) do not trip it
the way aau-harness 1.6's bare digit-run patterns did.

Findings (``finding`` ids)::

    email_address                    local@domain.tld, the TLD alphabetic; documentation domains
                                     (RFC 2606 / RFC 6761: example.com/.net/.org and *.example,
                                     *.test, *.invalid, *.localhost) are not flagged
    us_social_security_number        AAA-GG-SSSS or AAA GG SSSS (one separator, used twice) with a
                                     valid area (not 000, 666 or 900-999), group (not 00) and serial
                                     (not 0000); nine bare digits only right after "SSN",
                                     "social security (number|no)" or "SS#"
    payment_card_number              13-19 digits, optionally grouped by single spaces or hyphens,
                                     with a card network's prefix and length (Visa, Mastercard,
                                     American Express, Discover, JCB, Diners Club, UnionPay) and a
                                     valid Luhn check digit
    private_key                      a PEM "-----BEGIN ... PRIVATE KEY-----" header (RSA, EC, DSA,
                                     OpenSSH, encrypted, PGP)
    api_key_or_token                 well-known token formats: AWS access key ids, GitHub, Slack,
                                     Stripe, OpenAI/Anthropic-style ``sk-`` keys, Google API keys,
                                     JWTs, ``Bearer`` tokens
    credential_assignment            ``password``/``api_key``/``secret``/``token``-like names
                                     assigned (``:`` or ``=``, JSON quotes allowed) a value of 8+
                                     characters that is not a placeholder (``<...>``, ``${...}``,
                                     ``***``, ``redacted``, ``changeme``, ``$VAR``...), or a URL with
                                     ``user:password@``
    classified_or_controlled_marker  upper-case banner markings: TOP SECRET, SECRET//, CUI//,
                                     SOURCE SELECTION INFORMATION

Numbers are bounded on both sides: a digit, a decimal point followed by digits, or a letter next
to the candidate disqualifies it (so ``3.14159265358979323`` and ``case-000123456789`` are not
numbers of interest). Findings never echo the matched text, only where it is.

Sources: SSN rules — U.S. Social Security Administration, "Social Security Number Randomization"
(2011): area numbers 000, 666 and 900-999, group 00 and serial 0000 are never issued. Luhn — ISO/IEC
7812-1 Annex B. Card prefixes and lengths — ISO/IEC 7812 issuer identification numbers as the
networks publish them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

FINDING_IDS = (
    "email_address",
    "us_social_security_number",
    "payment_card_number",
    "private_key",
    "api_key_or_token",
    "credential_assignment",
    "classified_or_controlled_marker",
)


class Finding(NamedTuple):
    """One sensitive-looking span: ``finding`` (an id of ``FINDING_IDS``), ``field`` (where: a
    file or metadata field name) and ``offset`` (0-based character index in that text)."""

    finding: str
    field: str
    offset: int

    def line(self) -> str:
        """``"<field>: <finding> at character <offset>"`` (never the matched text)."""
        return f"{self.field}: {self.finding} at character {self.offset}"


# A number candidate may not touch a digit, a letter, or a decimal point that joins digits.
_NUM_START = r"(?<![0-9A-Za-z])(?<![0-9]\.)(?<![0-9],)"
_NUM_END = r"(?![0-9A-Za-z])(?!\.[0-9])(?!,[0-9])"

_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
    r"[A-Za-z]{2,24})(?![A-Za-z0-9-])")
_DOC_DOMAINS = ("example.com", "example.net", "example.org")
_DOC_TLDS = ("example", "test", "invalid", "localhost")

_SSN_SEPARATED = re.compile(_NUM_START + r"([0-9]{3})([- ])([0-9]{2})\2([0-9]{4})" + _NUM_END)
_SSN_KEYWORD = re.compile(
    r"(?i:\bssn\b|\bsocial[ _-]?security(?:[ _-]?(?:number|no\.?|#))?|\bss#)[\s\"':=#.-]{0,6}"
    r"([0-9]{3})[- ]?([0-9]{2})[- ]?([0-9]{4})" + _NUM_END)

_CARD = re.compile(_NUM_START + r"[0-9](?:[ -]?[0-9]){12,18}" + _NUM_END)

_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----")

_TOKENS = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"(?:AKIA|ASIA)[0-9A-Z]{16}"                       # AWS access key id
    r"|gh[pousr]_[A-Za-z0-9]{36,255}"                  # GitHub tokens
    r"|github_pat_[A-Za-z0-9_]{22,255}"                # GitHub fine-grained token
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"                  # Slack
    r"|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"           # Stripe
    r"|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"           # OpenAI / Anthropic style
    r"|AIza[0-9A-Za-z_-]{35}"                          # Google API key
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JWT
    r")(?![A-Za-z0-9])"
    r"|\bBearer [A-Za-z0-9._~+/-]{20,}=*")

_CREDENTIAL = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:password|passwd|pwd|passphrase|api[_-]?key|apikey|access[_-]?key"
    r"|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|secret[_-]?key"
    r"|private[_-]?key|secret|token)[\"']?\s*[:=]\s*[\"']?([^\s\"',;}]{8,})")
_PLACEHOLDER = re.compile(
    r"(?i)^(?:[<$%{].*|\*+|x{3,}|\.{3,}|redacted|changeme|placeholder|none|null"
    r"|example|your[_-].*|(?:env|os\.environ).*)$")
_URL_CREDENTIAL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@")

_MARKER = re.compile(r"\bTOP SECRET\b|\bSECRET//|\bCUI//|\bSOURCE SELECTION INFORMATION\b")


def luhn_valid(digits: str) -> bool:
    """True when the decimal string ``digits`` passes the Luhn (mod 10) check (ISO/IEC 7812-1)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = ord(ch) - 48
        if i % 2:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def card_network(digits: str) -> str | None:
    """The card network whose prefix and length ``digits`` has, or ``None``.

    Args:
        digits: 13 to 19 decimal digits, no separators.

    Returns:
        "visa", "mastercard", "amex", "discover", "jcb", "diners" or "unionpay".
    """
    n = len(digits)
    two, four, six = int(digits[:2]), int(digits[:4]), int(digits[:6])
    if digits[0] == "4" and n in (13, 16, 19):
        return "visa"
    if (51 <= two <= 55 or 222100 <= six <= 272099) and n == 16:
        return "mastercard"
    if two in (34, 37) and n == 15:
        return "amex"
    if (four == 6011 or two == 65 or 644 <= int(digits[:3]) <= 649) and n in (16, 19):
        return "discover"
    if 3528 <= four <= 3589 and 16 <= n <= 19:
        return "jcb"
    if (300 <= int(digits[:3]) <= 305 or two in (36, 38)) and 14 <= n <= 19:
        return "diners"
    if two == 62 and 16 <= n <= 19:
        return "unionpay"
    return None


def ssn_valid(area: str, group: str, serial: str) -> bool:
    """True when the three SSN parts could have been issued (SSA rules: area not 000, 666 or
    900-999; group not 00; serial not 0000)."""
    a = int(area)
    return a != 0 and a != 666 and a < 900 and group != "00" and serial != "0000"


def _card_ok(raw: str) -> bool:
    seps = {c for c in raw if not c.isdigit()}
    if len(seps) > 1:
        return False
    digits = "".join(c for c in raw if c.isdigit())
    if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    return card_network(digits) is not None and luhn_valid(digits)


def _email_ok(domain: str) -> bool:
    d = domain.lower()
    if d in _DOC_DOMAINS or any(d.endswith("." + x) for x in _DOC_DOMAINS):
        return False
    return d.rsplit(".", 1)[-1] not in _DOC_TLDS


def scan_text(text: str, field: str) -> list[Finding]:
    """Every sensitive-looking span of ``text``, validated (see the module docstring).

    Args:
        text: what to scan (a file's text, a metadata value).
        field: the name reported with each finding.

    Returns:
        findings sorted by offset then id; empty when nothing was found.
    """
    found: list[Finding] = []

    def add(finding: str, offset: int) -> None:
        found.append(Finding(finding, field, offset))

    url_logins = [m.span() for m in _URL_CREDENTIAL.finditer(text)]
    for start, _ in url_logins:
        add("credential_assignment", start)
    for m in _EMAIL.finditer(text):
        # user:password@host inside a URL is a credential, not an email address
        if _email_ok(m.group(1)) and not any(a <= m.start() < b for a, b in url_logins):
            add("email_address", m.start())
    for m in _SSN_SEPARATED.finditer(text):
        if ssn_valid(m.group(1), m.group(3), m.group(4)):
            add("us_social_security_number", m.start())
    for m in _SSN_KEYWORD.finditer(text):
        if ssn_valid(*m.groups()) and not any(
                f.finding == "us_social_security_number" and f.offset == m.start(1) for f in found):
            add("us_social_security_number", m.start(1))
    for m in _CARD.finditer(text):
        if _card_ok(m.group(0)):
            add("payment_card_number", m.start())
    for m in _PRIVATE_KEY.finditer(text):
        add("private_key", m.start())
    for m in _TOKENS.finditer(text):
        add("api_key_or_token", m.start())
    for m in _CREDENTIAL.finditer(text):
        if not _PLACEHOLDER.match(m.group(1)):
            add("credential_assignment", m.start())
    for m in _MARKER.finditer(text):
        add("classified_or_controlled_marker", m.start())
    return sorted(set(found), key=lambda f: (f.offset, f.finding))


def scan_fields(values: Mapping[str, str]) -> list[Finding]:
    """``scan_text`` over each ``{field: text}`` item, in the mapping's order."""
    findings: list[Finding] = []
    for field, text in values.items():
        findings.extend(scan_text(text, field))
    return findings
