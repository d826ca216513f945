// @aau/schemas: aau's JSON Schemas for JavaScript and TypeScript.
//
//   validate(kind, doc) -> ValidationError[]     every violation with its JSON path ([] = valid)
//   isValid, validateWith(schema, doc), kinds(), kindInfo(kind), schema(kind), schemaId(kind),
//   detectKind(doc), jsonPath(parts), SCHEMA_DIR
//   canonicalJson(value) -> bytes, canonicalDigest(value), sha256Hex, parseForCanonical(text)
//   legacySuiteText/legacySuiteSha256, legacyRenderJson/legacySha256Json,
//   legacyReleaseText/legacyReleaseDigest (JSON text in), pythonFloat
//   wilsonInterval, passHatK, passAtK, Z95
// Types: `import type { Documents } from "@aau/schemas/types"`; Documents["receipt-v2"] etc.

export * from "./validate.js";
export * from "./canonical.js";
export * from "./legacy.js";
export * from "./statistics.js";
