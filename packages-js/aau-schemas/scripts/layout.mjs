// The layout rules of schemas/ (schemas/README.md, Layout) shared by the build and the tests.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Every file below `dir`, sorted, recursively. */
export function walk(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** `path` relative to `root`, with "/" separators. */
export function posixRelative(root, path) {
  return relative(root, path).split(sep).join("/");
}

/**
 * The index.json kind that owns a schema path: the row with that path, or, for the superseded
 * file of a minor version (schemas/README.md "Versioning"), the row at `<family>/vN.M/<file>`
 * whose earlier folder (`vN/` or `vN.K/`, K < M) holds it, as tools/check_schemas.py's
 * kind_by_path.
 */
function kindOfPath(index, path) {
  const own = index.kinds.find((k) => k.path === path);
  if (own) return own.kind;
  const parts = path.split("/");
  const folder = parts.at(-2).match(/^v(\d+)(?:\.(\d+))?$/);
  if (!folder) return undefined;
  const [major, minor] = [folder[1], Number(folder[2] ?? 0)];
  const prefix = parts.slice(0, -2).join("/");
  return index.kinds.find((k) => {
    const row = k.path.split("/");
    const found = row.at(-2).match(/^v(\d+)\.(\d+)$/);
    return found && found[1] === major && Number(found[2]) > minor
      && row.slice(0, -2).join("/") === prefix && row.at(-1) === parts.at(-1);
  })?.kind;
}

/**
 * The kind an example is for: `<family>/vN/examples/{valid,invalid}/<name>.json` belongs to the
 * longest schema stem of `<family>/vN/` that is the name or starts it followed by "-". The
 * examples of a superseded file (`vN/` or an earlier `vN.K/`, whose kind's row moved to a later
 * minor of the major: schemas/README.md "Versioning") belong to that kind.
 * `rel` is relative to `schemaDir`; returns undefined when no schema of a kind matches.
 */
export function exampleKind(schemaDir, rel) {
  const index = JSON.parse(readFileSync(join(schemaDir, "index.json"), "utf8"));
  const path = exampleSchemaPath(schemaDir, rel);
  return path === undefined ? undefined : kindOfPath(index, path);
}

/**
 * The schema file an example is for, by the naming rule of `exampleKind` (the longest stem of
 * the example's own `<family>/vN/` or `vN.M/` folder), relative to `schemaDir`, or undefined. A
 * superseded minor's example is checked against this file: the newer minor accepts more, so an
 * invalid example of the older file may be valid under the kind.
 */
export function exampleSchemaPath(schemaDir, rel) {
  const parts = rel.split("/");
  const folder = parts.slice(0, -3).join("/");
  const name = parts.at(-1).replace(/\.json$/, "");
  const stem = readdirSync(join(schemaDir, folder))
    .filter((n) => n.endsWith(".schema.json"))
    .map((n) => n.slice(0, -".schema.json".length))
    .filter((s) => name === s || name.startsWith(s + "-"))
    .sort((a, b) => b.length - a.length)[0];
  return stem === undefined ? undefined : `${folder}/${stem}.schema.json`;
}
