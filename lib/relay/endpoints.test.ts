// Next's own files cannot import the endpoint table: proxy.ts's matcher must be a literal and the
// app/ route handlers are folders. This holds both to the table, so a path added there is served
// by Next too (`next start`) and never guarded as a console page.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isRelayPath, MODEL_PREFIX, MODELS_PATH, OPENAI_PATHS, PLAYGROUND_PATH, ROUTES } from "./endpoints";

const root = path.resolve(import.meta.dirname, "../..");

/** Every path the table names, and the read-only ones beside it. */
const RELAY_PATHS = [
  ...Object.keys(ROUTES),
  MODELS_PATH,
  `${MODEL_PREFIX}gpt-4o`,
  "/v1/engines/text-embedding-ada-002/embeddings",
  "/dashboard/billing/subscription",
  "/dashboard/billing/usage",
  "/v1/dashboard/billing/usage",
  // Gemini's protocol (lib/relay/inbound/gemini): the method follows a colon in the last segment.
  "/v1beta/models",
  "/v1beta/models/gemini-2.0-flash",
  "/v1beta/models/gemini-2.0-flash:generateContent",
  "/v1beta/models/gemini-2.0-flash:streamGenerateContent",
  // Tasks (lib/tasks): Midjourney with and without a mode, Suno, OpenAI's videos.
  "/mj/submit/imagine",
  "/mj/task/abc/fetch",
  "/mj/image/abc",
  "/fast/mj/submit/imagine",
  "/relax/mj/task/list-by-condition",
  "/turbo/mj/submit/blend",
  "/mj-fast/mj/submit/imagine",
  "/suno/submit/music",
  "/suno/fetch/abc",
  "/v1/videos",
  "/v1/videos/video_123/content",
];

/** The app/ route file that answers `urlPath` (exact folders first, then `[x]`, then `[...x]`). */
function routeFile(urlPath: string): string | null {
  let dir = path.join(root, "app");
  for (const segment of urlPath.split("/").filter(Boolean)) {
    if (existsSync(path.join(dir, segment))) {
      dir = path.join(dir, segment);
      continue;
    }
    const dynamic = readdirSync(dir).filter((name) => name.startsWith("["));
    const catchAll = dynamic.find((name) => name.startsWith("[..."));
    const single = dynamic.find((name) => !name.startsWith("[..."));
    if (single) dir = path.join(dir, single);
    else if (catchAll) return existsSync(path.join(dir, catchAll, "route.ts")) ? path.join(dir, catchAll, "route.ts") : null;
    else return null;
  }
  return existsSync(path.join(dir, "route.ts")) ? path.join(dir, "route.ts") : null;
}

describe("the endpoint table", () => {
  it("names OpenAI's path for every mode, and each is a POST route of that mode", () => {
    for (const [mode, p] of Object.entries(OPENAI_PATHS)) expect(ROUTES[p]?.mode).toBe(mode);
    expect(ROUTES[PLAYGROUND_PATH]?.mode).toBe("chat");
  });

  it("is answered by the relay core (isRelayPath) for every path", () => {
    for (const p of RELAY_PATHS) expect(isRelayPath(p), p).toBe(true);
    for (const p of [
      "/",
      "/token",
      "/api/status",
      "/pgx",
      "/dashboard",
      "/midjourney",
      "/task",
      "/mjx/a",
      "/sunos",
      "/api/mj/",
      "/api/mj/self/",
      "/token/mj/x",
    ])
      expect(isRelayPath(p), p).toBe(false);
  });

  it("has an app/ route handler for every path (the relay served through Next)", () => {
    for (const p of RELAY_PATHS) {
      const file = routeFile(p);
      expect(file, p).not.toBeNull();
      expect(readFileSync(file!, "utf8"), p).toContain("relayWebRequest");
    }
  });

  it("is left alone by proxy.ts's page guard", () => {
    const source = readFileSync(path.join(root, "proxy.ts"), "utf8");
    const literal = /matcher:\s*\[\s*("(?:[^"\\]|\\.)*")\s*\]/.exec(source)?.[1];
    expect(literal).toBeDefined();
    const guarded = new RegExp(`^${JSON.parse(literal!)}$`);
    for (const p of RELAY_PATHS) expect(guarded.test(p), p).toBe(false);
    for (const p of ["/token", "/pgx", "/apikeys", "/midjourney", "/task"]) expect(guarded.test(p), p).toBe(true);
  });
});
