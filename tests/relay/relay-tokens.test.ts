// Token counting never stalls a relay process: a prompt built to make the tokenizer quadratic
// (megabytes of one repeated character) is answered, and so is a small request sent beside it.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { getDb } from "@/lib/db";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { startRelayProcess } from "@/tests/helpers/process";
import { clearRelayData, seedChannel, seedUser } from "@/tests/helpers/relay";
import { countJsonPromptTokens } from "@/lib/relay/openai/token-count";

const MODEL = "gpt-4o-mini";
const HUGE_PROMPT_CHARS = 2 * 1024 * 1024;

describe("token counting in a relay process", () => {
  let mock: OpenAIMock;
  beforeAll(async () => {
    mock = await startOpenAIMock();
  });
  afterAll(async () => {
    await mock.close();
  });

  it("answers a 2 MB prompt of one repeated character, and a small request beside it, and bills both", async () => {
    await clearRelayData();
    // No usage from the upstream: the relay's own count of the prompt is the bill.
    mock.setBehaviour({ omitUsage: true });
    const user = await seedUser();
    await seedChannel({ base_url: mock.url, models: MODEL });
    const relay = await startRelayProcess({});
    // Also when the test times out with the process stuck in the tokenizer.
    onTestFinished(() => void relay.kill());
    const post = (content: string) =>
      fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content }] }),
      }).then(async (r) => ({ status: r.status, body: await r.text() }));
    try {
      const huge = post("a".repeat(HUGE_PROMPT_CHARS));
      const small = post("hi");
      const [h, s] = await Promise.all([huge, small]);
      expect(s.status).toBe(200);
      expect(h.status).toBe(200);
      expect(JSON.parse(h.body).choices[0].message.content).toBeTruthy();
      await relay.stop(); // writes the usage
    } finally {
      mock.setBehaviour(null);
    }
    const db = await getDb();
    const rows = await db.log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { prompt_tokens: "desc" } });
    expect(rows).toHaveLength(2);
    // Counted, not waved through: o200k packs a run of one letter into tokens of several letters,
    // so the count lies between an eighth and a half of the characters.
    expect(rows[0]!.prompt_tokens).toBeGreaterThan(HUGE_PROMPT_CHARS / 8);
    expect(rows[0]!.prompt_tokens).toBeLessThan(HUGE_PROMPT_CHARS / 2);
    expect(rows[0]!.quota).toBeGreaterThan(0n);
  }, 60_000);

  it("reads a 2 MB body off the event loop: the process's main thread never parses it, and bills the count made in one go", async () => {
    await clearRelayData();
    mock.setBehaviour({ omitUsage: true });
    const user = await seedUser();
    await seedChannel({ base_url: mock.url, models: MODEL });
    const relay = await startRelayProcess({ NODE_OPTIONS: `--require ${path.resolve("tests/fixtures/main-thread-parse.cjs")}` });
    onTestFinished(() => void relay.kill());
    const body = {
      model: MODEL,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "a".repeat(HUGE_PROMPT_CHARS) },
      ],
    };
    const sent = JSON.stringify(body);
    try {
      mock.reset();
      mock.setBehaviour({ omitUsage: true });
      const r = await fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: sent,
      });
      expect(r.status).toBe(200);
      expect((await r.json()).choices[0].message.content).toBeTruthy();
      // The upstream got the client's bytes, untouched.
      expect(mock.requests).toHaveLength(1);
      expect(mock.requests[0]!.bytes.equals(Buffer.from(sent))).toBe(true);
      await relay.stop();
    } finally {
      mock.setBehaviour(null);
    }
    const longest = Number(/MAIN_PARSE (\d+)/.exec(relay.output())?.[1]);
    expect(longest).toBeGreaterThan(0); // the probe ran
    expect(longest).toBeLessThan(64 * 1024);
    const db = await getDb();
    const rows = await db.log.findMany({ where: { user_id: user.id, type: 2 } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.prompt_tokens).toBe(countJsonPromptTokens("chat", body, MODEL));
  }, 60_000);

  it("loads no tokenizer until a request needs a local count: a 20 KB prompt billed by the upstream's usage does not", async () => {
    await clearRelayData();
    const user = await seedUser();
    await seedChannel({ base_url: mock.url, models: MODEL });
    const loadedBy = async (omitUsage: boolean) => {
      mock.setBehaviour(omitUsage ? { omitUsage: true } : null);
      const relay = await startRelayProcess({ NODE_OPTIONS: `--require ${path.resolve("tests/fixtures/loaded-modules.cjs")}` });
      onTestFinished(() => void relay.kill());
      try {
        const content = "Long documents are reserved from an estimate. ".repeat(450); // ~20 KB, over the raw-bytes estimate
        const r = await fetch(`${relay.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content }] }),
        });
        expect(r.status).toBe(200);
        await r.text();
        await relay.stop();
      } finally {
        mock.setBehaviour(null);
      }
      return /LOADED (.*)/.exec(relay.output())?.[1]?.split(",") ?? [];
    };
    const billedByUpstream = await loadedBy(false);
    expect(billedByUpstream).toContain("undici"); // the probe sees the process's packages
    expect(billedByUpstream).not.toContain("gpt-tokenizer");
    // Without usage from the upstream the relay counts, and only then loads the tokenizer.
    expect(await loadedBy(true)).toContain("gpt-tokenizer");
  }, 90_000);
});
