// QuotaRemindThreshold: a relay call that takes a user below the threshold (or to zero) mails them,
// at most once per window, and the settlement path only checks when its estimate crosses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { publishInvalidation } from "@/lib/cache/bus";
import { MemoryCache, setSharedCache } from "@/lib/cache/shared";
import { noteCharge, REMIND_WINDOW_SECONDS } from "@/lib/billing/quota-remind";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { startMockSmtp, type MockSmtp } from "@/tests/mocks/smtp";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the low-balance e-mail", () => {
  let mock: OpenAIMock;
  let relay: RelayServer;
  let smtp: MockSmtp;

  beforeAll(async () => {
    setSharedCache(new MemoryCache());
    smtp = await startMockSmtp();
    mock = await startOpenAIMock();
    relay = await startRelay("node");
    await updateOption("SMTPServer", "127.0.0.1");
    await updateOption("SMTPPort", String(smtp.port));
    await updateOption("SMTPFrom", "noreply@qiao.test");
    await updateOption("ServerAddress", "https://qiao.example");
    await updateOption("DisplayInCurrencyEnabled", "false");
    await updateOption("QuotaRemindThreshold", "5000");
    await updateOption("PreConsumedQuota", "100");
    await updateOption("ModelRatio", JSON.stringify({ "m-remind": 1 }));
    await clearRelayData();
    await seedChannel({ base_url: mock.url, models: "m-remind" });
    // Every call costs 2000 (ratio 1 × 2000 prompt tokens).
    mock.setBehaviour({ usage: { prompt_tokens: 2000, completion_tokens: 0, total_tokens: 2000 } });
  });
  afterAll(async () => {
    await relay.close();
    await mock.close();
    await smtp.close();
  });

  it("mails once when a call crosses the threshold, not again within the window, and once more at zero", async () => {
    const u = await seedUser({ quota: 8000 });
    const email = `remind${u.id}@example.com`;
    await (await getDb()).user.update({ where: { id: u.id }, data: { email } });
    const client = new OpenAI({ apiKey: u.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    const chat = () => client.chat.completions.create({ model: "m-remind", messages: [{ role: "user", content: "hi" }], max_tokens: 1 });
    const mailsTo = () => smtp.mails.filter((m) => m.to.includes(email));

    await chat(); // 8000 → 6000: above the threshold
    await sleep(800);
    expect(mailsTo()).toHaveLength(0);

    await chat(); // 6000 → 4000: crosses
    const low = await smtp.waitFor(email);
    expect(low.subject).toBe("您的额度即将用尽");
    expect(low.body).toContain("当前剩余额度为 4000 点额度");
    expect(low.body).toContain('<a href="https://qiao.example/topup">');

    await chat(); // 4000 → 2000: still below, no new crossing
    // A top-up (the user is reloaded), then another crossing inside the window: no second mail.
    await settleAll();
    await (await getDb()).user.update({ where: { id: u.id }, data: { quota: { increment: 4000n } } });
    publishInvalidation({ kind: "user", id: u.id });
    await chat(); // 6000 → 4000
    await sleep(800);
    expect(mailsTo()).toHaveLength(1);

    await chat(); // 4000 → 2000
    await chat(); // 2000 → 0: used up, a mail of its own
    const out = await smtp.waitFor(email).then(async () => {
      for (let i = 0; i < 50 && mailsTo().length < 2; i++) await sleep(100);
      return mailsTo()[1];
    });
    expect(out?.subject).toBe("您的额度已用尽");
    await settleAll();
    expect(await u.quota()).toBe(0n);
    expect(mailsTo()).toHaveLength(2);
  });

  it("sends nothing to a user without an e-mail address or while the threshold is 0", async () => {
    const before = smtp.mails.length;
    const noMail = await seedUser({ quota: 6000 });
    const client = new OpenAI({ apiKey: noMail.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: "m-remind", messages: [{ role: "user", content: "hi" }], max_tokens: 1 });

    await updateOption("QuotaRemindThreshold", "0");
    try {
      const u = await seedUser({ quota: 6000 });
      await (await getDb()).user.update({ where: { id: u.id }, data: { email: `off${u.id}@example.com` } });
      const c = new OpenAI({ apiKey: u.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
      await c.chat.completions.create({ model: "m-remind", messages: [{ role: "user", content: "hi" }], max_tokens: 1 });
      await sleep(800);
      expect(smtp.mails.length).toBe(before);
    } finally {
      await updateOption("QuotaRemindThreshold", "5000");
    }
  });

  it("checks only on a crossing: settlements that stay on one side start nothing", async () => {
    let flushes = 0;
    const ledger = { flush: async () => void flushes++ };
    const user = { id: 2_000_000_000, quotaHint: 10_000n };
    for (let i = 0; i < 4; i++) noteCharge(user, 1000n, 5000, ledger); // 10000 → 6000
    expect(flushes).toBe(0);
    noteCharge(user, 1500n, 5000, ledger); // → 4500: crosses
    expect(flushes).toBe(1);
    await sleep(50);
    // The check found no such user and left the estimate where it was; more spending below starts nothing.
    noteCharge(user, 1000n, 5000, ledger);
    noteCharge(user, 0n, 5000, ledger);
    expect(flushes).toBe(1);
    expect(REMIND_WINDOW_SECONDS).toBe(86_400);
  });
});
