// Validation of aau documents against the packaged schemas with ajv (draft 2020-12) and
// ajv-formats, offline: every schema file is added by its $id and nothing is ever fetched.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default import is the module object
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The folder holding the packaged copy of the repository's `schemas/` tree. */
export const SCHEMA_DIR: string = fileURLToPath(new URL("../schemas/", import.meta.url));

/** One row of `schemas/index.json`. */
export interface KindInfo {
  kind: string;
  path: string;
  title: string;
  version_field: string | null;
  version: string | null;
  /** Every accepted version string of a minor-versioned kind (schemas/README.md "Versioning"). */
  versions?: string[];
}

/** One violation: where (`$.cases[0].input`, and the same place as a JSON Pointer) and why. */
export interface ValidationError {
  /** JSON path in aau's style (`$`, `$.a[0].b`, `$['odd key']`), as the Python package prints. */
  path: string;
  /** The same location as an RFC 6901 JSON Pointer (`""` for the root). */
  pointer: string;
  /** ajv's keyword (`required`, `pattern`, ...). */
  keyword: string;
  /** ajv's message, with its parameters when it has any. */
  message: string;
  /** Where in the schema the failing keyword is (`#/properties/cases/items/required`). */
  schemaPath: string;
}

/** The kind is not one of `kinds()`. */
export class UnknownKindError extends Error {}

interface Index {
  base_uri: string;
  kinds: KindInfo[];
}

let state: { ajv: Ajv2020; index: Index; compiled: Map<string, ValidateFunction> } | undefined;

function schemaFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...schemaFiles(full));
    else if (name.endsWith(".schema.json")) out.push(full);
  }
  return out;
}

function loaded(): NonNullable<typeof state> {
  if (state === undefined) {
    // Options as tools/ajv/check.mjs (schemas/README.md "Validators"): strict, without the
    // strictTypes/strictRequired lints that refuse correct 2020-12; every error, not the first.
    const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
    addFormats(ajv);
    for (const file of schemaFiles(SCHEMA_DIR)) ajv.addSchema(JSON.parse(readFileSync(file, "utf8")));
    const index = JSON.parse(readFileSync(join(SCHEMA_DIR, "index.json"), "utf8")) as Index;
    state = { ajv, index, compiled: new Map() };
  }
  return state;
}

/** Every kind of `schemas/index.json`, in its order. */
export function kinds(): string[] {
  return loaded().index.kinds.map((k) => k.kind);
}

/** The index row of `kind`. Throws UnknownKindError. */
export function kindInfo(kind: string): KindInfo {
  const info = loaded().index.kinds.find((k) => k.kind === kind);
  if (info === undefined) {
    throw new UnknownKindError(`unknown kind ${JSON.stringify(kind)}; kinds: ${kinds().join(", ")}`);
  }
  return info;
}

/** The `$id` of `kind`'s schema (`https://aau.dev/schemas/suite/v1/suite.schema.json`). */
export function schemaId(kind: string): string {
  return loaded().index.base_uri + kindInfo(kind).path;
}

/** The parsed schema file of `kind`. */
export function schema(kind: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SCHEMA_DIR, kindInfo(kind).path), "utf8"));
}

/** A kind's accepted version strings: its `versions` list, else its `version` (none without a field). */
export function kindVersions(info: KindInfo): string[] {
  if (info.versions && info.versions.length > 0) return info.versions;
  return info.version === null ? [] : [info.version];
}

/**
 * The kind whose version field holds one of its version strings (`version`, or any listed in the
 * index row's `versions`), as aau_schemas.detect_kind.
 */
export function detectKind(doc: unknown): string | undefined {
  return detectKindIn(loaded().index.kinds, doc);
}

/** detectKind against the given index rows (the packaged `index.json`'s `kinds`, or any other). */
export function detectKindIn(kinds: readonly KindInfo[], doc: unknown): string | undefined {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return undefined;
  const record = doc as Record<string, unknown>;
  return kinds.find((k) => {
    if (k.version_field === null || !Object.hasOwn(record, k.version_field)) return false;
    const value = record[k.version_field];
    return typeof value === "string" && kindVersions(k).includes(value);
  })?.kind;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Render keys and indexes as aau's JSON path: `$`, `$.cases[0].input`, `$['odd key']`. */
export function jsonPath(parts: Array<string | number>): string {
  let out = "$";
  for (const part of parts) {
    if (typeof part === "number") out += `[${part}]`;
    else if (IDENT.test(part)) out += `.${part}`;
    else out += `['${part.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
  }
  return out;
}

/** A JSON Pointer into `doc` as path parts (array indexes as numbers where `doc` has arrays). */
export function pointerParts(pointer: string, doc: unknown): Array<string | number> {
  const parts: Array<string | number> = [];
  let current: unknown = doc;
  for (const raw of pointer === "" ? [] : pointer.split("/").slice(1)) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(token)) {
      parts.push(Number(token));
      current = current[Number(token)];
    } else {
      parts.push(token);
      current = current !== null && typeof current === "object" ? (current as Record<string, unknown>)[token] : undefined;
    }
  }
  return parts;
}

function errorsOf(validateFn: ValidateFunction, doc: unknown): ValidationError[] {
  if (validateFn(doc)) return [];
  return (validateFn.errors ?? []).map((e: ErrorObject) => ({
    path: jsonPath(pointerParts(e.instancePath, doc)),
    pointer: e.instancePath,
    keyword: e.keyword,
    message: (e.message ?? e.keyword) + (e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""),
    schemaPath: e.schemaPath,
  }));
}

/**
 * Validate `doc` (a parsed JSON value) as a document of `kind`.
 *
 * Returns every violation (an empty array when the document is valid), each with its JSON path.
 * What the schema cannot say (arithmetic, hashes of other files) is not checked here.
 * Throws UnknownKindError for a kind not in `kinds()`.
 */
export function validate(kind: string, doc: unknown): ValidationError[] {
  const { ajv, compiled } = loaded();
  const id = schemaId(kind);
  let fn = compiled.get(id);
  if (fn === undefined) {
    fn = ajv.compile({ $ref: id });
    compiled.set(id, fn);
  }
  return errorsOf(fn, doc);
}

/** True when `validate(kind, doc)` finds nothing. */
export function isValid(kind: string, doc: unknown): boolean {
  return validate(kind, doc).length === 0;
}

/**
 * Validate against any schema that may `$ref` the packaged ones by `$id` (e.g. a
 * JSON-Schema-Test-Suite wrapper `{"$ref": "https://aau.dev/schemas/common/v1/defs.schema.json#/$defs/rate"}`).
 */
export function validateWith(wrapper: Record<string, unknown>, doc: unknown): ValidationError[] {
  const { ajv, compiled } = loaded();
  const key = "inline:" + JSON.stringify(wrapper);
  let fn = compiled.get(key);
  if (fn === undefined) {
    fn = ajv.compile(wrapper);
    compiled.set(key, fn);
  }
  return errorsOf(fn, doc);
}
