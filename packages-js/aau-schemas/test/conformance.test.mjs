// schemas/conformance/ cases (the same files the Python tests run): RFC 8785, the 1.x
// conventions, Wilson and pass^k/pass@k. The bootstraps are Python-only (README.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  SCHEMA_DIR, CanonicalizationError, canonicalDigest, canonicalJson, parseForCanonical, sha256Hex,
  legacyReleaseDigest, legacyReleaseText, legacyRenderJson, legacySha256Json, legacySuiteSha256,
  legacySuiteText, passAtK, passHatK, pythonFloat, wilsonInterval,
} from "../dist/index.js";

const load = (name) => JSON.parse(readFileSync(join(SCHEMA_DIR, "conformance", name), "utf8"));
const canonical = load("canonical.json").cases;
const legacy = load("legacy.json").cases;
const stats = load("statistics.json");
const close = (actual, expected, what) =>
  assert.ok(Math.abs(actual - expected) <= stats.tolerance, `${what}: ${actual} != ${expected}`);

for (const c of canonical) {
  test(`rfc8785 ${c.id}`, () => {
    if (c.error !== undefined) {
      assert.throws(() => canonicalJson(parseForCanonical(c.input_json)), CanonicalizationError);
      return;
    }
    const value = parseForCanonical(c.input_json);
    const bytes = canonicalJson(value);
    assert.equal(new TextDecoder().decode(bytes), c.canonical);
    assert.equal(sha256Hex(bytes), c.sha256);
    assert.equal(canonicalDigest(value), c.digest);
  });
}

for (const c of legacy) {
  test(`legacy ${c.id}`, () => {
    assert.equal(legacySuiteText(c.input_json), c.suite.text);
    assert.equal(legacySuiteSha256(c.input_json), c.suite.sha256);
    assert.equal(legacyRenderJson(c.input_json), c.evidence.text);
    assert.equal(legacySha256Json(c.input_json), c.evidence.sha256);
    assert.equal(legacyReleaseText(c.input_json), c.release.text);
    assert.equal(legacyReleaseDigest(c.input_json), c.release.sha256);
  });
}

test("python float repr at the positional/scientific boundaries", () => {
  assert.equal(pythonFloat("1e16"), "1e+16");
  assert.equal(pythonFloat("9999999999999998.0"), "9999999999999998.0");
  assert.equal(pythonFloat("0.0001"), "0.0001");
  assert.equal(pythonFloat("0.00001"), "1e-05");
  assert.equal(pythonFloat("-1.5e300"), "-1.5e+300");
  assert.equal(pythonFloat("-0.0"), "-0.0");
  assert.throws(() => pythonFloat("1e400"), RangeError);
});

test("wilson", () => {
  for (const c of stats.wilson.cases) {
    const [low, high] = c.z === undefined ? wilsonInterval(c.successes, c.n) : wilsonInterval(c.successes, c.n, c.z);
    close(low, c.low, `low ${JSON.stringify(c)}`);
    close(high, c.high, `high ${JSON.stringify(c)}`);
  }
  for (const c of stats.wilson.errors) assert.throws(() => wilsonInterval(c.successes, c.n), RangeError);
});

test("pass^k and pass@k", () => {
  for (const c of stats.pass_k.cases) {
    close(passHatK(c.counts, c.k), c.pass_hat_k, `pass^${c.k} ${JSON.stringify(c.counts)}`);
    close(passAtK(c.counts, c.k), c.pass_at_k, `pass@${c.k} ${JSON.stringify(c.counts)}`);
  }
  for (const c of stats.pass_k.errors) {
    assert.throws(() => passHatK(c.counts, c.k), RangeError);
    assert.throws(() => passAtK(c.counts, c.k), RangeError);
  }
});
