// Every example and JSON-Schema-Test-Suite vector of the packaged schemas under validate().
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { exampleKind, exampleSchemaPath, posixRelative, walk } from "../scripts/layout.mjs";
import { SCHEMA_DIR, detectKind, detectKindIn, isValid, jsonPath, kindInfo, kinds, validate, validateWith, UnknownKindError } from "../dist/index.js";

const read = (path) => JSON.parse(readFileSync(path, "utf8"));
const index = read(join(SCHEMA_DIR, "index.json"));
const examples = walk(SCHEMA_DIR)
  .map((file) => posixRelative(SCHEMA_DIR, file))
  .filter((rel) => /\/examples\/(valid|invalid)\/[^/]+\.json$/.test(rel));

test("the package holds every kind of index.json and its examples", () => {
  assert.deepEqual(kinds(), index.kinds.map((k) => k.kind));
  assert.ok(examples.length > 200, `${examples.length} examples`);
});

for (const rel of examples) {
  test(`example ${rel}`, () => {
    const kind = exampleKind(SCHEMA_DIR, rel);
    assert.ok(kind, "no kind for this example");
    const doc = read(join(SCHEMA_DIR, rel));
    // against the example's own file: a minor version accepts more, so an invalid example of
    // the file it superseded may be valid under the kind (its newest minor)
    const errors = validateWith({ $ref: index.base_uri + exampleSchemaPath(SCHEMA_DIR, rel) }, doc);
    if (rel.includes("/valid/")) {
      assert.deepEqual(errors, []);
      assert.deepEqual(validate(kind, doc), []);
      const info = kindInfo(kind);
      if (info.version_field && doc[info.version_field] === info.version) assert.equal(detectKind(doc), kind);
    } else {
      assert.ok(errors.length > 0, "an invalid example validated");
      for (const e of errors) assert.match(e.path, /^\$/);
    }
  });
}

const vectorFiles = readdirSync(join(SCHEMA_DIR, "tests")).filter((n) => n.endsWith(".json")).sort();
test("every kind has at least 8 vectors", () => {
  for (const kind of kinds()) {
    assert.ok(vectorFiles.includes(`${kind}.json`), `schemas/tests/${kind}.json missing`);
    const count = read(join(SCHEMA_DIR, "tests", `${kind}.json`)).reduce((n, g) => n + g.tests.length, 0);
    assert.ok(count >= 8, `${kind}: ${count} vectors`);
  }
});
for (const name of vectorFiles) {
  test(`vectors ${name}`, () => {
    for (const group of read(join(SCHEMA_DIR, "tests", name))) {
      for (const t of group.tests) {
        const errors = validateWith(group.schema, t.data);
        assert.equal(errors.length === 0, t.valid, `${group.description} / ${t.description}: ${JSON.stringify(errors.slice(0, 3))}`);
      }
    }
  });
}

test("errors carry aau's JSON path style, every one of them", () => {
  const suite = read(join(SCHEMA_DIR, "suite/v1/examples/valid/suite-byo-agent-smoke.json"));
  const broken = structuredClone(suite);
  broken.cases[1].scenario_id = "";
  broken.sharing.human_review_complete = "yes";
  delete broken.cases[0].expected;
  const paths = validate("suite", broken).map((e) => e.path);
  assert.ok(paths.includes("$.cases[1].scenario_id"), paths.join(" "));
  assert.ok(paths.includes("$.sharing.human_review_complete"), paths.join(" "));
  assert.ok(paths.includes("$.cases[0]"), paths.join(" "));
  assert.equal(isValid("suite", suite), true);
  assert.equal(jsonPath(["a", 0, "odd key", "it's"]), "$.a[0]['odd key']['it\\'s']");
  assert.throws(() => validate("no-such-kind", {}), UnknownKindError);
});

test("detectKind: a document carrying any version string an index row lists in versions is that kind", () => {
  // schemas/README.md "Versioning": a minor vN.M/ row lists every accepted string of its major.
  const rows = [
    { kind: "widget", path: "widget/v1.1/widget.schema.json", title: "t", version_field: "widget_version",
      version: "aau-widget/1.1", versions: ["aau-widget/1.0", "aau-widget/1.1"] },
    { kind: "widget-v2", path: "widget/v2/widget.schema.json", title: "t", version_field: "widget_version",
      version: "aau-widget/2.0" },
    { kind: "common", path: "common/v1/defs.schema.json", title: "t", version_field: null, version: null },
  ];
  assert.equal(detectKindIn(rows, { widget_version: "aau-widget/1.0" }), "widget");
  assert.equal(detectKindIn(rows, { widget_version: "aau-widget/1.1" }), "widget");
  assert.equal(detectKindIn(rows, { widget_version: "aau-widget/2.0" }), "widget-v2");
  assert.equal(detectKindIn(rows, { widget_version: "aau-widget/1.2" }), undefined);
  assert.equal(detectKindIn(rows, { widget_version: ["aau-widget/1.0"] }), undefined);
  assert.equal(detectKindIn(rows, { other: "aau-widget/1.0" }), undefined);
  assert.equal(detectKindIn(rows, ["aau-widget/1.0"]), undefined);
});
