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
 * The kind an example is for: `<family>/vN/examples/{valid,invalid}/<name>.json` belongs to the
 * longest schema stem of `<family>/vN/` that is the name or starts it followed by "-". The
 * examples of a superseded file (`vN/` or an earlier `vN.K/`, whose kind's row moved to a later
 * minor of the major: schemas/README.md "Versioning") belong to that kind.
 * `rel` is relative to `schemaDir`; returns undefined when no schema of a kind matches.
 */
export function exampleKind(schemaDir, rel) {
  const index = JSON.parse(readFileSync(join(schemaDir, "index.json"), "utf8"));
  const parts = rel.split("/");
  const folder = parts.slice(0, -3).join("/");
  const name = parts.at(-1).replace(/\.json$/, "");
  const stem = readdirSync(join(schemaDir, folder))
    .filter((n) => n.endsWith(".schema.json"))
    .map((n) => n.slice(0, -".schema.json".length))
    .filter((s) => name === s || name.startsWith(s + "-"))
    .sort((a, b) => b.length - a.length)[0];
  const exact = index.kinds.find((k) => k.path === `${folder}/${stem}.schema.json`);
  if (exact !== undefined) return exact.kind;
  const family = parts.slice(0, -4).join("/");
  const major = /^v\d+/.exec(parts.at(-4))?.[0];
  return index.kinds.find((k) => {
    const [dir, file] = [k.path.split("/").slice(0, -1), k.path.split("/").at(-1)];
    return dir.slice(0, -1).join("/") === family && file === `${stem}.schema.json` &&
      new RegExp(`^${major}(\\.\\d+)?$`).test(dir.at(-1));
  })?.kind;
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
