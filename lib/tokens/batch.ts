// A batch of tokens (spec §5 Token form, 新建数量): how many one create may make, and their names:
// the first keeps the name, the others get a random suffix so the list tells them apart. Shared by
// POST /api/token/ and the token drawer, so it imports nothing server-only.

/** Most tokens one create makes. */
export const TOKEN_BATCH_MAX = 100;

export const BATCH_MSG = { countInvalid: "新建数量必须是正整数" } as const;

const SUFFIX_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A uniform random integer below n (Web Crypto: the browser and Node both have it). */
function randomBelow(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const word = new Uint32Array(1);
  do crypto.getRandomValues(word);
  while (word[0]! >= limit);
  return word[0]! % n;
}

/** Six random letters or digits, the suffix of the second and later tokens of a batch. */
export function randomSuffix(pick: (n: number) => number = randomBelow): string {
  let out = "";
  for (let i = 0; i < 6; i++) out += SUFFIX_CHARS[pick(SUFFIX_CHARS.length)];
  return out;
}

/** `count` names: name, name-xxxxxx, name-yyyyyy, … */
export function batchNames(name: string, count: number, suffix: () => string = randomSuffix): string[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? name : `${name}-${suffix()}`));
}
