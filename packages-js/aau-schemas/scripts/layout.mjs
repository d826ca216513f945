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
 * longest schema stem of `<family>/vN/` that is the name or starts it followed by "-". A file
 * superseded by a minor version (`receipt/v2/` once `receipt/v2.1/` holds the kind's row,
 * schemas/README.md "Versioning") belongs to the kind of that newer minor of its major.
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
  if (exact) return exact.kind;
  const [family, version] = [folder.split("/").slice(0, -1).join("/"), folder.split("/").at(-1)];
  const major = /^v([1-9][0-9]*)(?:\.([1-9][0-9]*))?$/.exec(version);
  if (!major) return undefined;
  const minorOf = (path) => {
    const m = new RegExp(`^${family}/v${major[1]}\\.([1-9][0-9]*)/${stem}\\.schema\\.json$`).exec(path);
    return m ? Number(m[1]) : undefined;
  };
  const newer = index.kinds.find((k) => (minorOf(k.path) ?? 0) > Number(major[2] ?? 0));
  return newer?.kind;
}
