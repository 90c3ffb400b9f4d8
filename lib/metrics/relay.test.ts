// The relay's metrics: label values stay bounded (models past MAX_MODEL_LABELS and channels past
// MAX_CHANNEL_LABELS are "other", their counts kept), status classes, the bearer check, and the
// exposition text of this process's registry.
import { describe, expect, it } from "vitest";
import { simpleUsage } from "@/lib/billing/usage";
import { MAX_CHANNEL_LABELS, MAX_MODEL_LABELS, metricsRegistry, OTHER_LABEL } from "@/lib/metrics/registry";
import { recordAnswered, recordFailed, recordUpstreamError, statusClass } from "@/lib/metrics/relay";
import { bearerMatches } from "@/lib/metrics/scrape";
import { labelValues, metricValue, metricValues as values } from "@/tests/helpers/metrics";

describe("relay metrics", () => {
  it("counts an answered call once in each of its series", async () => {
    const usage = { ...simpleUsage(120, 30), cached_tokens: 100, reasoning_tokens: 10 };
    recordAnswered("unit-model", 7, Date.now() - 1500, 400, usage, 75);
    expect(await metricValue("qiao_relay_requests_total", { model: "unit-model", channel: "7", status_class: "2xx" })).toBe(1);
    expect(await metricValue("qiao_relay_tokens_total", { model: "unit-model", kind: "prompt" })).toBe(120);
    expect(await metricValue("qiao_relay_tokens_total", { model: "unit-model", kind: "completion" })).toBe(30);
    expect(await metricValue("qiao_relay_tokens_total", { model: "unit-model", kind: "cached" })).toBe(100);
    expect(await metricValue("qiao_relay_tokens_total", { model: "unit-model", kind: "reasoning" })).toBe(10);
    expect(await metricValue("qiao_quota_consumed_total", { model: "unit-model" })).toBe(75);
    const labels = { model: "unit-model", channel: "7" };
    expect(await metricValue("qiao_relay_request_duration_seconds", labels, "qiao_relay_request_duration_seconds_count")).toBe(1);
    // 1.5 s: in the 2.5 s bucket, not the 1 s one.
    expect(
      await metricValue("qiao_relay_request_duration_seconds", { ...labels, le: "1" }, "qiao_relay_request_duration_seconds_bucket"),
    ).toBe(0);
    expect(
      await metricValue("qiao_relay_request_duration_seconds", { ...labels, le: "2.5" }, "qiao_relay_request_duration_seconds_bucket"),
    ).toBe(1);
    expect(await metricValue("qiao_relay_first_token_seconds", labels, "qiao_relay_first_token_seconds_sum")).toBeCloseTo(0.4, 6);
  });

  it("counts a failure by its status class, with the channel tried last or none", async () => {
    recordFailed("unit-failing", 9, Date.now(), 503);
    recordFailed("unit-failing", 9, Date.now(), 429);
    recordFailed("unit-failing", 0, Date.now(), 404);
    expect(await metricValue("qiao_relay_requests_total", { model: "unit-failing", channel: "9", status_class: "5xx" })).toBe(1);
    expect(await metricValue("qiao_relay_requests_total", { model: "unit-failing", channel: "9", status_class: "4xx" })).toBe(1);
    expect(await metricValue("qiao_relay_requests_total", { model: "unit-failing", channel: "none", status_class: "4xx" })).toBe(1);
    expect(await metricValue("qiao_relay_first_token_seconds", { model: "unit-failing" }, "qiao_relay_first_token_seconds_count")).toBe(0);
    expect([statusClass(200), statusClass(302), statusClass(499), statusClass(599), statusClass(0), statusClass(600)]).toEqual([
      "2xx",
      "3xx",
      "4xx",
      "5xx",
      "other",
      "other",
    ]);
  });

  it("keeps at most MAX_MODEL_LABELS models; later ones are counted as other", async () => {
    // Every model seen so far has a requests series (a failed one has no tokens).
    const before = new Set((await values("qiao_relay_requests_total")).map((v) => String(v.labels.model)));
    const extra = 40;
    const fresh = MAX_MODEL_LABELS - before.size + extra;
    for (let i = 0; i < fresh; i++) recordAnswered(`bounded-${i}`, 1, Date.now(), -1, simpleUsage(1, 1), 1);
    const models = new Set((await values("qiao_relay_requests_total")).map((v) => String(v.labels.model)));
    expect(models.size).toBe(MAX_MODEL_LABELS + 1);
    expect(models.has(OTHER_LABEL)).toBe(true);
    expect(models.has(`bounded-${fresh - extra - 1}`)).toBe(true);
    expect(models.has(`bounded-${fresh - extra}`)).toBe(false);
    expect(await metricValue("qiao_relay_tokens_total", { model: OTHER_LABEL, kind: "prompt" })).toBe(extra);
    expect(await metricValue("qiao_relay_requests_total", { model: OTHER_LABEL, channel: "1", status_class: "2xx" })).toBe(extra);
  });

  it("keeps at most MAX_CHANNEL_LABELS channels", async () => {
    for (let id = 1; id <= MAX_CHANNEL_LABELS + 5; id++) recordUpstreamError(id, 500);
    const channels = new Set((await values("qiao_upstream_errors_total")).map((v) => String(v.labels.channel)));
    expect(channels.size).toBeLessThanOrEqual(MAX_CHANNEL_LABELS + 1);
    expect(channels.has(OTHER_LABEL)).toBe(true);
    expect(await metricValue("qiao_upstream_errors_total", { channel: OTHER_LABEL, reason: "500" })).toBeGreaterThanOrEqual(5);
  });

  it("shows no key, e-mail or address in any label of the exposition text", async () => {
    const text = await metricsRegistry.metrics();
    expect(text).toContain("qiao_relay_requests_total{");
    expect(text).toContain("process_resident_memory_bytes");
    for (const value of labelValues(text)) {
      expect(value).not.toContain("sk-");
      expect(value).not.toContain("@");
    }
  });
});

describe("bearerMatches", () => {
  it("takes only the exact token after Bearer", () => {
    expect(bearerMatches("Bearer s3cret", "s3cret")).toBe(true);
    expect(bearerMatches("bearer s3cret", "s3cret")).toBe(true);
    expect(bearerMatches("Bearer s3cre", "s3cret")).toBe(false);
    expect(bearerMatches("Bearer s3cret2", "s3cret")).toBe(false);
    expect(bearerMatches("s3cret", "s3cret")).toBe(false);
    expect(bearerMatches("Basic s3cret", "s3cret")).toBe(false);
    expect(bearerMatches(undefined, "s3cret")).toBe(false);
    expect(bearerMatches("Bearer ", "")).toBe(false);
  });
});
