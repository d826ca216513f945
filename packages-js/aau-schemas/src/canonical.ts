// RFC 8785 (JSON Canonicalization Scheme) bytes and SHA-256, as aau_schemas.canonical_json /
// canonical_digest. The `canonicalize` library serialises (and refuses NaN, Infinity and lone
// surrogates); parseForCanonical refuses the integer literals RFC 8785 (I-JSON) cannot represent.

import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** The value has no RFC 8785 form (not finite, an unsafe integer literal, a lone surrogate...). */
export class CanonicalizationError extends Error {}

const MAX_SAFE = 2n ** 53n - 1n;

/**
 * Parse JSON text for canonicalisation, refusing integer literals beyond +-(2**53 - 1), which a
 * JavaScript number would silently round (Python keeps them exact, then refuses to canonicalise).
 */
export function parseForCanonical(text: string): unknown {
  return JSON.parse(text, function (this: unknown, _key: string, value: unknown, context?: { source?: string }) {
    const source = context?.source;
    if (typeof value === "number" && source !== undefined && /^-?[0-9]+$/.test(source)) {
      const big = BigInt(source);
      if (big > MAX_SAFE || big < -MAX_SAFE) {
        throw new CanonicalizationError(`integer ${source} is beyond +-(2**53 - 1)`);
      }
    }
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown);
}

/** RFC 8785 canonical UTF-8 bytes of a JSON value. Throws CanonicalizationError. */
export function canonicalJson(value: unknown): Uint8Array {
  let text: string | undefined;
  try {
    text = canonicalize(value); // refuses NaN, Infinity and lone surrogates itself
  } catch (err) {
    throw new CanonicalizationError(`cannot canonicalise value: ${(err as Error).message}`);
  }
  if (text === undefined) throw new CanonicalizationError("cannot canonicalise value: not JSON");
  return new TextEncoder().encode(text);
}

/** Lowercase hex SHA-256 of bytes (64 characters). */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** `"sha256:" + sha256Hex(canonicalJson(value))`, the form of a receipt's `suite_digest`. */
export function canonicalDigest(value: unknown): string {
  return "sha256:" + sha256Hex(canonicalJson(value));
}
