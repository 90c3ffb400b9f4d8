// Every /api route that reads a body (POST and PUT under app/api), driven through its route
// handler as Next calls it, with fuzzed bodies (issue 20.5): malformed, deeply nested, huge,
// unicode-broken and type-confused JSON, signed in as root so every schema is reached. Whatever
// comes in: no 5xx, and the envelope `{success, message}`. fast-check with a fixed seed.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { clientIpHeaders } from "@/lib/net/client-ip";
import { createUser } from "@/tests/helpers/api";

type Handler = (req: Request, ctx?: { params?: Promise<Record<string, string>> }) => Promise<Response>;
type Route = { path: string; params?: Record<string, string>; load: () => Promise<Record<string, unknown>> };

// Every route file under app/api exporting POST or PUT (tests/hygiene would name a new one).
const ROUTES: Route[] = [
  { path: "/api/channel", load: () => import("@/app/api/channel/route") },
  { path: "/api/channel/1/key", params: { id: "1" }, load: () => import("@/app/api/channel/[id]/key/route") },
  { path: "/api/channel/batch", load: () => import("@/app/api/channel/batch/route") },
  { path: "/api/channel/fetch_models", load: () => import("@/app/api/channel/fetch_models/route") },
  { path: "/api/channel/fix", load: () => import("@/app/api/channel/fix/route") },
  { path: "/api/option", load: () => import("@/app/api/option/route") },
  { path: "/api/option/rest_model_ratio", load: () => import("@/app/api/option/rest_model_ratio/route") },
  { path: "/api/redemption", load: () => import("@/app/api/redemption/route") },
  { path: "/api/token", load: () => import("@/app/api/token/route") },
  { path: "/api/user", load: () => import("@/app/api/user/route") },
  { path: "/api/user/aff_transfer", load: () => import("@/app/api/user/aff_transfer/route") },
  { path: "/api/user/amount", load: () => import("@/app/api/user/amount/route") },
  { path: "/api/user/login", load: () => import("@/app/api/user/login/route") },
  { path: "/api/user/manage", load: () => import("@/app/api/user/manage/route") },
  { path: "/api/user/passkey/login/begin", load: () => import("@/app/api/user/passkey/login/begin/route") },
  { path: "/api/user/passkey/login/finish", load: () => import("@/app/api/user/passkey/login/finish/route") },
  { path: "/api/user/passkey/register/begin", load: () => import("@/app/api/user/passkey/register/begin/route") },
  { path: "/api/user/passkey/register/finish", load: () => import("@/app/api/user/passkey/register/finish/route") },
  { path: "/api/user/passkey/verify/begin", load: () => import("@/app/api/user/passkey/verify/begin/route") },
  { path: "/api/user/passkey/verify/finish", load: () => import("@/app/api/user/passkey/verify/finish/route") },
  { path: "/api/user/register", load: () => import("@/app/api/user/register/route") },
  { path: "/api/user/reset", load: () => import("@/app/api/user/reset/route") },
  { path: "/api/user/self", load: () => import("@/app/api/user/self/route") },
  { path: "/api/user/stripe/amount", load: () => import("@/app/api/user/stripe/amount/route") },
  { path: "/api/user/stripe/pay", load: () => import("@/app/api/user/stripe/pay/route") },
  { path: "/api/stripe/webhook", load: () => import("@/app/api/stripe/webhook/route") },
  { path: "/api/user/topup", load: () => import("@/app/api/user/topup/route") },
  { path: "/api/user/topup/complete", load: () => import("@/app/api/user/topup/complete/route") },
];

// Member names the schemas read, so type-confused objects reach their checks.
const KEYS = [
  "id",
  "ids",
  "key",
  "value",
  "name",
  "username",
  "password",
  "original_password",
  "display_name",
  "email",
  "token",
  "quota",
  "remain_quota",
  "unlimited_quota",
  "expired_time",
  "model_limits",
  "model_limits_enabled",
  "allow_ips",
  "group",
  "type",
  "status",
  "models",
  "base_url",
  "other",
  "model_mapping",
  "priority",
  "weight",
  "count",
  "action",
  "mode",
  "amount",
  "code",
  "aff_code",
  "tag",
  "setting",
  "test_model",
  "auto_ban",
  "status_code_mapping",
  "verification_code",
  "trade_no",
];

// Options whose value is JSON text, read back as objects.
const JSON_OPTIONS = [
  "ModelRatio",
  "CompletionRatio",
  "GroupRatio",
  "UserUsableGroups",
  "ModelPrice",
  "CacheRatio",
  "TopupGroupRatio",
  "AutoGroups",
];

const enc = new TextEncoder();

/**
 * fetch_models calls the channel address its body names: a body that parses to an object gets a
 * closed loopback port as its base_url, so no fuzzed host is ever looked up or contacted.
 */
const FETCH_MODELS = "/api/channel/fetch_models";
function onLoopback(bytes: Uint8Array): Uint8Array {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes));
    if (v && typeof v === "object" && !Array.isArray(v)) return enc.encode(JSON.stringify({ ...v, base_url: "http://127.0.0.1:9" }));
  } catch {
    // not JSON: sent as is
  }
  return bytes;
}
const deep = (n: number, kind: number) =>
  kind === 0
    ? `${"[".repeat(n)}${"]".repeat(n)}`
    : kind === 1
      ? `${'{"a":'.repeat(n)}1${"}".repeat(n)}`
      : `{"value":${"[".repeat(n)}"x"${"]".repeat(n)}}`;

const body: fc.Arbitrary<{ kind: string; bytes: Uint8Array }> = fc.oneof(
  fc.string({ maxLength: 200 }).map((s) => ({ kind: "malformed", bytes: enc.encode(s) })),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ kind: "bytes", bytes })),
  fc.tuple(fc.integer({ min: 1_000, max: 20_000 }), fc.nat({ max: 2 })).map(([n, k]) => ({ kind: "deep", bytes: enc.encode(deep(n, k)) })),
  fc.tuple(fc.constantFrom(...KEYS), fc.integer({ min: 1_000, max: 20_000 })).map(([k, n]) => ({
    kind: "deep-member",
    bytes: enc.encode(`{"${k}":${deep(n, 0)}}`),
  })),
  // JSON inside a string member (options, model_mapping, status_code_mapping, setting… hold JSON text)
  fc.tuple(fc.constantFrom(...KEYS), fc.integer({ min: 1_000, max: 20_000 }), fc.nat({ max: 2 })).map(([k, n, d]) => ({
    kind: "deep-text-member",
    bytes: enc.encode(JSON.stringify({ [k]: deep(n, d), name: "x", models: "m" })),
  })),
  fc
    .tuple(
      fc.constantFrom(...JSON_OPTIONS),
      fc.oneof(
        fc.integer({ min: 1_000, max: 20_000 }).map((n) => deep(n, 2)),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null"),
      ),
    )
    .map(([key, value]) => ({
      kind: "option-json",
      bytes: enc.encode(JSON.stringify({ key, value })),
    })),
  fc.tuple(fc.constantFrom(...KEYS), fc.integer({ min: 100_000, max: 2_000_000 })).map(([k, n]) => ({
    kind: "huge",
    bytes: enc.encode(JSON.stringify({ [k]: "a".repeat(n) })),
  })),
  fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom('"\\ud800"', '"a\\udc00"', '["\\udfff"]')).map(([k, raw]) => ({
    kind: "surrogate",
    bytes: enc.encode(`{"${k}":${raw}}`),
  })),
  fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80])).map(([k, bad]) => ({
    kind: "bad-utf8",
    bytes: new Uint8Array([...enc.encode(`{"${k}":"a`), ...bad, ...enc.encode('"}')]),
  })),
  fc
    .dictionary(fc.constantFrom(...KEYS), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 })
    .map((o) => ({ kind: "confused", bytes: enc.encode(JSON.stringify(o)) })),
  fc.jsonValue({ maxDepth: 3 }).map((v) => ({ kind: "confused-top", bytes: enc.encode(JSON.stringify(v) ?? "null") })),
);

describe("every /api body schema under fuzzed bodies", () => {
  const handlers: { route: Route; method: string; handler: Handler }[] = [];
  let root: { id: number; cookie: string };

  beforeAll(async () => {
    for (const route of ROUTES) {
      const mod = await route.load();
      for (const method of ["POST", "PUT"])
        if (typeof mod[method] === "function") handlers.push({ route, method, handler: mod[method] as Handler });
    }
    root = await createUser({ username: `fuzzroot${Date.now().toString(36)}`, role: 100 });
  });

  it("answers every body with the envelope and never 5xx", async () => {
    expect(handlers.length).toBeGreaterThanOrEqual(ROUTES.length);
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: handlers.length - 1 }).chain((i) =>
          body.map((b) => ({
            i,
            b,
            [fc.toStringMethod]: () =>
              `${handlers[i]!.method} ${handlers[i]!.route.path} ${b.kind}: ${new TextDecoder().decode(b.bytes.subarray(0, 120))}… (${b.bytes.length} bytes)`,
          })),
        ),
        async ({ i, b }) => {
          const { route, method, handler } = handlers[i]!;
          const bytes = route.path === FETCH_MODELS ? onLoopback(b.bytes) : b.bytes;
          const headers = new Headers({ ...clientIpHeaders("127.0.0.1"), "content-type": "application/json", cookie: root.cookie });
          headers.set("new-api-user", String(root.id));
          const res = await handler(new Request(`http://localhost${route.path}`, { method, headers, body: Buffer.from(bytes) }), {
            params: Promise.resolve(route.params ?? {}),
          });
          const text = await res.text();
          const label = `${method} ${route.path} ${b.kind} → ${res.status} ${text.slice(0, 200)}`;
          // fetch_models asks the address in its body: one that does not answer is the upstream's 502.
          const upstreamDown = route.path === FETCH_MODELS && res.status === 502 && text.includes("获取模型列表失败");
          if (!upstreamDown) expect(res.status, label).toBeLessThan(500);
          const json = JSON.parse(text);
          expect(typeof json.success, label).toBe("boolean");
          if (res.status >= 400) expect(json.success === false && typeof json.message === "string", label).toBe(true);
        },
      ),
      { seed: Number(process.env.FUZZ_SEED ?? 20_2005), numRuns: Number(process.env.FUZZ_RUNS ?? 400), endOnFailure: true },
    );
  }, 180_000);
});
