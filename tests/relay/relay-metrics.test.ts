// The relay's Prometheus metrics move by exactly the calls made, through the real relay core (both
// entries) against mock upstreams: answered calls (whole and streamed, the stream's first token),
// an upstream 500 (upstream_errors and a 5xx request), tokens and quota as billed. Then GET /metrics
// of plain `next start` (app/metrics/route.ts): 404 without a token, 401 with a wrong one, 200
// with the MetricsToken option's; and no label of the scrape carries a key or an e-mail.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { updateOption } from "@/lib/options";
import { GET as metricsRoute } from "@/app/metrics/route";
import { labelValues, metricValue } from "@/tests/helpers/metrics";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const USAGE = { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 };

for (const entry of ENTRIES) {
  describe(`relay metrics (${entry} entry)`, () => {
    let good: OpenAIMock;
    let broken: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;
    let goodId: string;
    let brokenId: string;
    // Priced by default; the series by model add up over both entries, so those are compared as deltas.
    const model = "gpt-4o-mini";
    const failing = "gpt-4o";

    beforeAll(async () => {
      good = await startOpenAIMock({ behaviour: { usage: USAGE } });
      broken = await startOpenAIMock({ behaviour: { failStatus: 500 } });
      relay = await startRelay(entry);
    });
    afterAll(async () => {
      await relay.close();
      await good.close();
      await broken.close();
      await updateOption("RetryTimes", "0");
    });
    beforeEach(async () => {
      await clearRelayData();
      await updateOption("RetryTimes", "0");
      user = await seedUser();
      goodId = String((await seedChannel({ base_url: good.url, models: model })).id);
      brokenId = String((await seedChannel({ base_url: broken.url, models: failing })).id);
    });

    const call = (m: string, stream: boolean) =>
      fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: m,
          messages: [{ role: "user", content: "hi" }],
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
        }),
      });

    it("counts answered calls, a stream's first token, tokens and quota by exactly what was billed", async () => {
      const ok = { model, channel: goodId, status_class: "2xx" };
      const series = { model, channel: goodId };
      const before = await user.quota();
      const prompt = await metricValue("qiao_relay_tokens_total", { model, kind: "prompt" });
      const completion = await metricValue("qiao_relay_tokens_total", { model, kind: "completion" });
      const quota = await metricValue("qiao_quota_consumed_total", { model });
      for (const stream of [false, false, true]) {
        const res = await call(model, stream);
        expect(res.status).toBe(200);
        await res.text();
      }
      // A whole answer is settled right after it is written: wait for the third end.
      await vi.waitFor(async () => expect(await metricValue("qiao_relay_requests_total", ok)).toBe(3));
      expect(await metricValue("qiao_relay_request_duration_seconds", series, "qiao_relay_request_duration_seconds_count")).toBe(3);
      expect(await metricValue("qiao_relay_first_token_seconds", series, "qiao_relay_first_token_seconds_count")).toBe(1);
      expect(await metricValue("qiao_relay_tokens_total", { model, kind: "prompt" })).toBe(prompt + 3 * USAGE.prompt_tokens);
      expect(await metricValue("qiao_relay_tokens_total", { model, kind: "completion" })).toBe(completion + 3 * USAGE.completion_tokens);
      expect(await metricValue("qiao_streams_in_flight", {})).toBe(0);
      await settleAll();
      const charged = Number(before - (await user.quota()));
      expect(charged).toBeGreaterThan(0);
      expect(await metricValue("qiao_quota_consumed_total", { model })).toBe(quota + charged);
      expect(await metricValue("qiao_upstream_errors_total", { channel: goodId })).toBe(0);
    });

    it("counts an upstream 500 as an upstream error of its channel and a 5xx call", async () => {
      const quota = await metricValue("qiao_quota_consumed_total", { model: failing });
      const res = await call(failing, false);
      expect(res.status).toBe(500);
      await res.text();
      expect(await metricValue("qiao_upstream_errors_total", { channel: brokenId, reason: "500" })).toBe(1);
      expect(await metricValue("qiao_relay_requests_total", { model: failing, channel: brokenId, status_class: "5xx" })).toBe(1);
      expect(await metricValue("qiao_relay_requests_total", { model: failing, channel: brokenId, status_class: "2xx" })).toBe(0);
      expect(await metricValue("qiao_quota_consumed_total", { model: failing })).toBe(quota);
      expect(await metricValue("qiao_channels", { state: "enabled" })).toBe(2);
    });
  });
}

describe("GET /metrics under next start", () => {
  const scrape = (authorization?: string) =>
    metricsRoute(new Request("http://127.0.0.1/metrics", { headers: authorization ? { authorization } : {} }));

  afterAll(async () => {
    await updateOption("MetricsToken", "");
  });

  it("is 404 without a token, 401 with a wrong one, and the exposition text with the right one", async () => {
    await updateOption("MetricsToken", "");
    expect((await scrape("Bearer anything")).status).toBe(404);
    await updateOption("MetricsToken", "scrape-token-1");
    const missing = await scrape();
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toContain("Bearer");
    expect((await scrape("Bearer scrape-token-2")).status).toBe(401);
    const ok = await scrape("Bearer scrape-token-1");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/plain");
    const text = await ok.text();
    expect(text).toContain("# TYPE qiao_relay_requests_total counter");
    expect(text).toContain('qiao_relay_requests_total{model="gpt-4o-mini",');
    expect(text).toContain("qiao_ledger_holds");
    expect(text).toContain("nodejs_eventloop_lag_seconds");
    // Hygiene: after every call above, no label value is a key or an e-mail.
    for (const value of labelValues(text)) {
      expect(value).not.toContain("sk-");
      expect(value).not.toContain("@");
    }
  });
});
