"""The sensitive-data scan: a table of true and false positives, and its validators."""

from __future__ import annotations

import aau_schemas
import pytest
from aau_evidence._privacy_scan import (
    FINDING_IDS,
    card_network,
    luhn_valid,
    privacy_scan_document,
    scan_fields,
    scan_text,
    ssn_valid,
)

# (text, the finding ids the scan must report)
TABLE = [
    # ordinary numbers aau-harness 1.6 flagged: none of these is sensitive
    ("Docket No. 123456789 was filed", []),
    ("dockets 987654321 and 234567890", []),
    ("case 2021-123456789", []),
    ("p = 0.123456789012345", []),
    ("pi 3.14159265358979323846", []),
    ("latency_s 0.202340, mean 0.209712", []),
    ("order id 1234567890123456", []),               # 16 digits, no network prefix + Luhn
    ("4111111111111112", []),                        # Visa prefix, Luhn fails
    ("tracking 4111-1111 1111-1111", []),            # mixed separators: not a card layout
    ("000-12-3456 666-12-3456 912-12-3456", []),     # never-issued SSN areas
    ("123-00-4567 123-45-0000", []),                 # never-issued group / serial
    ("123-45 6789", []),                             # inconsistent separators
    ("phone 555-123-4567", []),
    ("timestamp 2026-08-01T12:00:00Z", []),
    ("reach us at someone@example.org or a@b.example", []),   # documentation domains
    ("bob@mail.test", []),
    ("pkg@1.2.3", []),
    ("password: <redacted>", []),
    ("api_key=${API_KEY}", []),
    ("password reset is out of scope", []),
    ('"credentials_included": false', []),
    ('"contains_secrets_or_credentials": false', []),
    ("a secret: the agent never answers", []),
    ("Top secret plans are not in scope", []),        # prose, not a banner marking
    # real sensitive data
    ("contact alice.smith@agency.gov", ["email_address"]),
    ("ALICE@CITY.CA.US", ["email_address"]),
    ("SSN 123-45-6789", ["us_social_security_number"]),
    ("ssn 123 45 6789", ["us_social_security_number"]),
    ("SSN: 123456789", ["us_social_security_number"]),
    ("social security number 234567890", ["us_social_security_number"]),
    ("card 4111 1111 1111 1111", ["payment_card_number"]),
    ("5500-0000-0000-0004", ["payment_card_number"]),
    ("amex 378282246310005", ["payment_card_number"]),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIB", ["private_key"]),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", ["private_key"]),
    ("key AKIAIOSFODNN7EXAMPLE", ["api_key_or_token"]),
    ("token ghp_" + "a1B2" * 9, ["api_key_or_token"]),
    ("xoxb-1234567890-abcdefghij", ["api_key_or_token"]),
    ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", ["api_key_or_token"]),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV",
     ["api_key_or_token"]),
    ("password: hunter2hunter2", ["credential_assignment"]),
    ('"client_secret": "9f8e7d6c5b4a39281706"', ["credential_assignment"]),
    ("db url postgres://admin:s3cr3tpw@db.internal/app", ["credential_assignment"]),
    ('"api_key": "sk-abcdefghijklmnopqrstuvwx"', ["credential_assignment", "api_key_or_token"]),
    ("TOP SECRET//NOFORN", ["classified_or_controlled_marker"]),
    ("CUI//SP-PRVCY", ["classified_or_controlled_marker"]),
]


@pytest.mark.parametrize(("text", "expected"), TABLE, ids=[t for t, _ in TABLE])
def test_scan_table(text: str, expected: list[str]) -> None:
    assert sorted({f.finding for f in scan_text(text, "f")}) == sorted(expected)


def test_findings_say_where_never_what() -> None:
    findings = scan_fields({"summary": "ok", "suite.json": "write to x.y@agency.gov now"})
    assert [(f.finding, f.field, f.offset) for f in findings] == [
        ("email_address", "suite.json", 9)]
    assert "agency" not in findings[0].line()
    assert {f.finding for f in findings} <= set(FINDING_IDS)


@pytest.mark.parametrize(("digits", "ok"), [
    ("4111111111111111", True), ("79927398713", True), ("79927398710", False),
    ("378282246310005", True), ("378282246310006", False)])
def test_luhn(digits: str, ok: bool) -> None:
    assert luhn_valid(digits) is ok


@pytest.mark.parametrize(("digits", "network"), [
    ("4111111111111111", "visa"), ("5500000000000004", "mastercard"),
    ("2221000000000009", "mastercard"), ("378282246310005", "amex"),
    ("6011111111111117", "discover"), ("3530111333300000", "jcb"),
    ("30569309025904", "diners"), ("6200000000000005", "unionpay"),
    ("1234567890123456", None), ("411111111111111", None)])
def test_card_network(digits: str, network: str | None) -> None:
    assert card_network(digits) == network


@pytest.mark.parametrize(("parts", "ok"), [
    (("123", "45", "6789"), True), (("000", "45", "6789"), False), (("666", "45", "6789"), False),
    (("900", "45", "6789"), False), (("899", "45", "6789"), True), (("123", "00", "6789"), False),
    (("123", "45", "0000"), False)])
def test_ssn_rules(parts: tuple[str, str, str], ok: bool) -> None:
    assert ssn_valid(*parts) is ok


def test_privacy_scan_document_validates() -> None:
    doc = privacy_scan_document(["receipts/run-01.json", "receipts/run-02.json"])
    aau_schemas.validate("submission-privacy-scan", doc)
    assert doc["scanned"][:2] == ["submission metadata", "suite.json"]
