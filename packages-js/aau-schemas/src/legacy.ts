// The aau-harness 1.x hashing conventions (aau_schemas legacy_*), which serialise JSON the way
// Python's `json.dumps` does. They take JSON *text*: Python writes `1.0` and `1` differently and
// keeps integers of any size, which a JavaScript number cannot tell apart, so numbers are kept as
// their source literal (JSON.parse's source-text access, Node >= 22).

import { sha256Hex } from "./canonical.js";

class Literal {
  constructor(readonly source: string) {}
}

type Tree = null | boolean | string | Literal | Tree[] | { [key: string]: Tree };

function parse(text: string): Tree {
  return JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === "number" ? new Literal(context!.source!) : value,
  ) as Tree;
}

/** Python's `repr` of the float a non-integer JSON literal parses to (json.dumps's float form). */
export function pythonFloat(source: string): string {
  const x = Number(source);
  if (!Number.isFinite(x)) throw new RangeError(`${source} overflows a float (aau refuses it)`);
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, expText] = Math.abs(x).toExponential().split("e"); // shortest round-trip digits
  const digits = mantissa.replace(".", "");
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const rest = digits.length > 1 ? "." + digits.slice(1) : "";
    return `${sign}${digits[0]}${rest}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const fraction = digits.slice(exp + 1);
  return `${sign}${whole}.${fraction || "0"}`;
}

function number(literal: Literal): string {
  return /^-?[0-9]+$/.test(literal.source) ? BigInt(literal.source).toString() : pythonFloat(literal.source);
}

const SHORT: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

function string(value: string, ascii: boolean): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    const code = value.charCodeAt(i);
    if (SHORT[ch] !== undefined) out += SHORT[ch];
    else if (code < 0x20 || (ascii && code > 0x7e)) out += "\\u" + code.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

interface Style {
  ascii: boolean;
  indent?: number;
}

function dump(node: Tree, style: Style, level: number): string {
  if (node === null) return "null";
  if (node === true) return "true";
  if (node === false) return "false";
  if (typeof node === "string") return string(node, style.ascii);
  if (node instanceof Literal) return number(node);
  const items: string[] = Array.isArray(node)
    ? node.map((item) => dump(item, style, level + 1))
    : Object.keys(node)
        .sort(byCodePoint)
        .map((key) => string(key, style.ascii) + (style.indent ? ": " : ":") + dump(node[key], style, level + 1));
  const [open, close] = Array.isArray(node) ? ["[", "]"] : ["{", "}"];
  if (items.length === 0) return open + close;
  if (!style.indent) return open + items.join(",") + close;
  const pad = " ".repeat(style.indent * (level + 1));
  return `${open}\n${pad}${items.join(`,\n${pad}`)}\n${" ".repeat(style.indent * level)}${close}`;
}

/** Text behind a 1.x `suite_sha256`: compact, sorted, ASCII-escaped JSON plus "\n". */
export function legacySuiteText(jsonText: string): string {
  return dump(parse(jsonText), { ascii: true }, 0) + "\n";
}

/** 1.x `suite_sha256` (also the study, submission and capsule suite binding). */
export function legacySuiteSha256(jsonText: string): string {
  return sha256Hex(legacySuiteText(jsonText));
}

/** 1.x artifact rendering: two-space indented, sorted, ASCII-escaped JSON plus "\n". */
export function legacyRenderJson(jsonText: string): string {
  return dump(parse(jsonText), { ascii: true, indent: 2 }, 0) + "\n";
}

/** 1.x `sha256_json` (study, session and report hashes): SHA-256 of legacyRenderJson. */
export function legacySha256Json(jsonText: string): string {
  return sha256Hex(legacyRenderJson(jsonText));
}

/** Text behind a 1.x release-gate digest: compact sorted JSON, not escaped, no newline. */
export function legacyReleaseText(jsonText: string): string {
  return dump(parse(jsonText), { ascii: false }, 0);
}

/** 1.x release-gate `digest`: SHA-256 of the UTF-8 of legacyReleaseText. */
export function legacyReleaseDigest(jsonText: string): string {
  return sha256Hex(legacyReleaseText(jsonText));
}
