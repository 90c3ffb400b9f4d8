// Channel tests: one tiny chat request through the channel's adapter, timed. Tests record the
// response time, re-enable an auto-disabled channel that works again (AutomaticEnableChannelEnabled)
// and disable one that fails or is too slow (AutomaticDisableChannelEnabled + the channel's auto_ban).
import { request } from "undici";
import { getDb } from "@/lib/db";
import { nowSeconds } from "@/lib/db/num";
import { notFound } from "@/lib/api/errors";
import { getOptions, type OptionValues } from "@/lib/options";
import { InternalAddressError } from "@/lib/net/public-connect";
import { publishInvalidation } from "@/lib/cache/bus";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { loadChannelsForRouting, setChannelStatus, type RoutingChannel } from "@/lib/channels/routing";
import { getProvider } from "@/lib/relay/providers";
import { resolveUpstreamModel, toChannelConfig } from "@/lib/relay/channel";
import { describeUpstreamNetworkError, parseUpstreamError, shouldDisableChannel } from "@/lib/relay/errors";
import { agentForChannel } from "@/lib/relay/runtime";

export type ChannelTestResult = { success: boolean; message: string; time: number };

const TEST_TIMEOUT_MS = 30_000;

function testModelOf(ch: RoutingChannel, requested?: string): string {
  return requested || ch.test_model || ch.models[0] || "gpt-4o-mini";
}

/** Sends the test request; returns the outcome without changing anything. */
async function probe(
  ch: RoutingChannel,
  model: string,
  options: OptionValues,
): Promise<ChannelTestResult & { status: number; disable: boolean }> {
  const adapter = getProvider(ch.type);
  if (!adapter) return { success: false, message: `渠道类型 ${ch.type} 不支持测试`, time: 0, status: 0, disable: false };
  const config = toChannelConfig(ch);
  const upstreamModel = resolveUpstreamModel(config, model);
  const mode = adapter.supportedModes.has("chat") ? "chat" : adapter.supportedModes.has("embeddings") ? "embeddings" : null;
  if (!mode) return { success: false, message: "该渠道类型不支持测试", time: 0, status: 0, disable: false };
  const body =
    mode === "chat"
      ? {
          model: upstreamModel,
          messages: [{ role: "user", content: "hi" }],
          ...(/^o\d/.test(upstreamModel) ? { max_completion_tokens: 1 } : { max_tokens: 1 }),
        }
      : { model: upstreamModel, input: "hi" };
  const path = mode === "chat" ? "/v1/chat/completions" : "/v1/embeddings";
  const started = Date.now();
  try {
    const up = adapter.buildRequest({
      channel: config,
      mode,
      upstreamModel,
      clientPath: path,
      body: JSON.stringify(body),
      contentType: "application/json",
      stream: false,
      json: body,
    });
    const res = await request(up.url, {
      method: "POST",
      headers: up.headers,
      body: up.body,
      dispatcher: agentForChannel(ch, options),
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    });
    const text = await res.body.text();
    const time = Date.now() - started;
    if (res.statusCode >= 200 && res.statusCode < 300 && !/^\s*\{\s*"error"\s*:\s*\{/.test(text)) {
      return { success: true, message: "", time, status: res.statusCode, disable: false };
    }
    const error = parseUpstreamError(res.statusCode, text);
    return {
      success: false,
      message: error.message,
      time,
      status: res.statusCode,
      disable: shouldDisableChannel(res.statusCode, error, ch.type),
    };
  } catch (error) {
    // The admin testing the channel is told which address was refused and why.
    const message =
      error instanceof InternalAddressError
        ? `${error.message}，ChannelPrivateAddressAllowed 已关闭，不允许管理员设置的渠道连接这类地址`
        : describeUpstreamNetworkError(error).message;
    return { success: false, message, time: Date.now() - started, status: 0, disable: false };
  }
}

/** Tests one channel, records its response time and applies the auto enable/disable rules. */
export async function testChannel(id: number, model?: string): Promise<ChannelTestResult> {
  const ch = (await loadChannelsForRouting()).find((c) => c.id === id);
  if (!ch) throw notFound("渠道不存在");
  return applyTest(ch, await probe(ch, testModelOf(ch, model), await getOptions()));
}

async function applyTest(ch: RoutingChannel, r: Awaited<ReturnType<typeof probe>>): Promise<ChannelTestResult> {
  const db = await getDb();
  await db.channel.update({ where: { id: ch.id }, data: { response_time: r.time, test_time: nowSeconds() } });
  publishInvalidation({ kind: "channels" });
  const o = await getOptions();
  const thresholdMs = Number(o.ChannelDisableThreshold) * 1000;
  const tooSlow = thresholdMs > 0 && r.time > thresholdMs;
  if (r.success && !tooSlow && ch.status === CHANNEL_STATUS.autoDisabled && o.AutomaticEnableChannelEnabled) {
    await setChannelStatus(ch.id, 1);
  } else if ((!r.success && r.disable) || (r.success && tooSlow)) {
    if (ch.status === 1 && ch.auto_ban && o.AutomaticDisableChannelEnabled) {
      await setChannelStatus(
        ch.id,
        3,
        r.success
          ? `响应时间 ${(r.time / 1000).toFixed(2)}s 超过阈值 ${o.ChannelDisableThreshold}s`
          : `测试失败：${r.message}`.slice(0, 500),
      );
    }
  }
  return { success: r.success, message: r.message, time: r.time };
}

type AllTests = { running: Promise<void> | null };
const g = globalThis as { __qiaoChannelTests?: AllTests };
const all: AllTests = (g.__qiaoChannelTests ??= { running: null });

/**
 * Tests every channel that is enabled or auto-disabled, one after another, in the background.
 * Returns false when a run is already going.
 */
export function testAllChannels(): boolean {
  if (all.running) return false;
  all.running = (async () => {
    const channels = (await loadChannelsForRouting()).filter((c) => c.status === 1 || c.status === 3);
    for (const ch of channels) {
      await applyTest(ch, await probe(ch, testModelOf(ch), await getOptions())).catch((e) =>
        console.error(`[channels] test of #${ch.id} failed:`, e),
      );
    }
  })().finally(() => {
    all.running = null;
  });
  return true;
}

/** For tests: resolves when the current run of testAllChannels ends. */
export const allChannelTestsDone = () => all.running ?? Promise.resolve();
