// Wilson interval, pass^k and pass@k, as aau-core's _statistics.py (same formulas and refusals).
// The bootstraps are Python-only: they are defined by numpy's PCG64 and CPython's Mersenne
// Twister streams (schemas/conformance/README.md).

/** Standard normal quantile for a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

/**
 * Wilson score interval for a proportion (E. B. Wilson, JASA 22(158), 1927).
 *
 * centre = (p + z^2/2n) / (1 + z^2/n); half = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/4n^2).
 * `successes` in [0, n] (may be fractional), `n` >= 1. Returns [low, high] within [0, 1] with
 * low <= successes/n <= high. Throws RangeError otherwise.
 */
export function wilsonInterval(successes: number, n: number, z: number = Z95): [number, number] {
  if (n < 1) throw new RangeError("n must be >= 1");
  if (!(successes >= 0 && successes <= n)) throw new RangeError("successes must be within [0, n]");
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt(Math.max((p * (1 - p)) / n + z2 / (4 * n * n), 0));
  return [Math.min(Math.max(0, centre - half), p), Math.max(Math.min(1, centre + half), p)];
}

function comb(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let out = 1n;
  for (let i = 1; i <= k; i++) out = (out * BigInt(n - k + i)) / BigInt(i);
  return out;
}

function ratio(a: bigint, b: bigint): number {
  return Number(a) / Number(b);
}

function checkCounts(counts: Array<[number, number]>, k: number): void {
  if (k < 1) throw new RangeError("k must be >= 1");
  if (counts.length === 0) throw new RangeError("need at least one scenario");
  for (const [c, n] of counts) {
    if (n < k) throw new RangeError(`k=${k} exceeds a scenario's trial count n=${n}`);
    if (c < 0 || c > n) throw new RangeError(`successes c=${c} outside [0, n=${n}]`);
  }
}

/** pass^k (tau-bench, Yao et al. 2024): mean over scenarios of C(c, k) / C(n, k). */
export function passHatK(counts: Array<[number, number]>, k: number): number {
  checkCounts(counts, k);
  return counts.reduce((sum, [c, n]) => sum + ratio(comb(c, k), comb(n, k)), 0) / counts.length;
}

/** pass@k (Chen et al. 2021): mean over scenarios of 1 - C(n - c, k) / C(n, k). */
export function passAtK(counts: Array<[number, number]>, k: number): number {
  checkCounts(counts, k);
  return counts.reduce((sum, [c, n]) => sum + (1 - ratio(comb(n - c, k), comb(n, k))), 0) / counts.length;
}
