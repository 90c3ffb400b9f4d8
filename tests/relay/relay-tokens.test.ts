// Token counting never stalls a relay process: a prompt built to make the tokenizer quadratic
// (megabytes of one repeated character) is answered, and so is a small request sent beside it.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { getDb } from "@/lib/db";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { startRelayProcess } from "@/tests/helpers/process";
import { clearRelayData, seedChannel, seedUser } from "@/tests/helpers/relay";

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
