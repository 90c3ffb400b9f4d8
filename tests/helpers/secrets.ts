// The check every test that starts a server makes of its output when it stops it (instance.ts,
// process.ts): no credential shape anywhere in what the server printed. Shapes, not known values:
// a relay key (sk- and 20 or more key characters; a masked one has its `*`), a bearer token, a
// session cookie's value, a `key=` query value. The dedicated test with known values is
// tests/hygiene/log-secrets.test.ts.
const SECRET_SHAPES: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9]{20,}/,
  /\bBearer\s+[A-Za-z0-9._~+/-]{16,}/i,
  /\bqiao_session=[^\s;"',]{16,}/,
  /[?&]key=[A-Za-z0-9_-]{16,}/,
];

/** The lines of `output` that hold a credential's shape, each cut to its first 160 characters. */
export function linesWithSecrets(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => SECRET_SHAPES.some((shape) => shape.test(line)))
    .map((line) => line.slice(0, 160));
}

/** Throws, naming the lines, when `output` holds a credential's shape. */
export function expectNoSecretsIn(output: string, who: string): void {
  const found = linesWithSecrets(output);
  if (found.length > 0) throw new Error(`${who} printed what looks like a credential:\n${found.join("\n")}`);
}
