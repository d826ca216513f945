// Validate documents against aau's schemas with ajv (draft 2020-12 + ajv-formats).
//
// Usage:  node check.mjs [SCHEMA_DIR] < jobs.json > verdicts.json
//
// SCHEMA_DIR defaults to ../../schemas beside this file. Every *.schema.json below it is added
// with addSchema (so relative $refs resolve by $id, offline; ajv never loads anything else).
//
// stdin:  [{"id": "...", "schema_id": "https://aau.dev/schemas/...[#/pointer]", "data": ...}, ...]
//         A job may give "schema": {...} (an inline schema, e.g. a vector file's wrapper)
//         instead of "schema_id".
// stdout: {"ajv": "<version>", "results": [{"id", "valid": bool, "errors": [{"path", "message"}]}]}
//         "path" is a JSON Pointer (ajv's instancePath, "" for the root).
// A job whose schema cannot be compiled gets valid=null and one error naming the problem.
// Exit status: 0 when every job got a verdict, 2 on bad input.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const schemaDir = process.argv[2] ?? join(here, "..", "..", "schemas");
const ajvVersion = createRequire(import.meta.url)("ajv/package.json").version;

function schemaFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...schemaFiles(full));
    else if (name.endsWith(".schema.json")) out.push(full);
  }
  return out;
}

// Strict mode stays on for the schema itself (strictSchema: an unknown or misplaced keyword is an
// error, so a typo cannot silently weaken a schema; strictNumbers; strictTuples), except two lints
// that refuse correct 2020-12 we rely on: strictTypes (our if/then/else branches and $ref siblings
// constrain properties without repeating `"type": "object"`) and strictRequired (a `then` may
// require a property that its parent schema defines). allErrors so the error list is comparable
// with the other validators.
const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
addFormats(ajv);
for (const file of schemaFiles(schemaDir)) {
  ajv.addSchema(JSON.parse(readFileSync(file, "utf8")));
}

const cache = new Map();
function compiled(job) {
  const key = job.schema_id !== undefined ? "id:" + job.schema_id : "inline:" + JSON.stringify(job.schema);
  if (!cache.has(key)) {
    const schema = job.schema_id !== undefined ? { $ref: job.schema_id } : job.schema;
    cache.set(key, ajv.compile(schema));
  }
  return cache.get(key);
}

let jobs;
try {
  jobs = JSON.parse(readFileSync(0, "utf8"));
  if (!Array.isArray(jobs)) throw new Error("stdin must be a JSON array of jobs");
} catch (err) {
  process.stderr.write(`check.mjs: ${err.message}\n`);
  process.exit(2);
}

const results = jobs.map((job) => {
  let validate;
  try {
    validate = compiled(job);
  } catch (err) {
    return { id: job.id, valid: null, errors: [{ path: "", message: `schema error: ${err.message}` }] };
  }
  const valid = validate(job.data);
  const errors = valid
    ? []
    : validate.errors.map((e) => ({
        path: e.instancePath,
        message: `${e.keyword}: ${e.message}` + (e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""),
      }));
  return { id: job.id, valid, errors };
});

process.stdout.write(JSON.stringify({ ajv: ajvVersion, results }) + "\n");
