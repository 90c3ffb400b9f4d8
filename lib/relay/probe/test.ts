// Channel tests: one tiny chat request through the channel's relay adapter and connection pool
// (model mapping, the address rules of agentForChannel), timed. Tests record the response time and
// test time, re-enable an auto-disabled channel that works again (AutomaticEnableChannelEnabled) and
// disable one that fails in a way that means a dead key or account (the relay's triggers) or answers
// slower than ChannelDisableThreshold (AutomaticDisableChannelEnabled + the channel's auto_ban).
// A test is billed to nobody: it writes a log row with quota 0 for the admin who ran it, token name
// "模型测试" (a consume row when it worked, an error row when it did not).
import { isObj } from "@/lib/obj";
import { getDb, getLogDb } from "@/lib/db";
import { nowSeconds } from "@/lib/db/num";
import { notFound } from "@/lib/errors";
import { getOptions, type OptionValues } from "@/lib/options";
import { publishInvalidation } from "@/lib/cache/bus";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { loadChannelsForRouting, setChannelStatus, type RoutingChannel } from "@/lib/channels/routing";
import { isMultiKeyMode, splitChannelKeys } from "@/lib/channels/keys";
import { channelKeyHash } from "@/lib/channels/key-hash";
import { OPENAI_PATHS } from "@/lib/relay/endpoints";
import { getProvider, relayRefusal } from "@/lib/relay/providers";
import { resolveUpstreamModel, toChannelConfig } from "@/lib/relay/memory/channel";
import { errorFromJson, parseUpstreamError, RelayError, shouldDisableChannel, type UpstreamError } from "@/lib/relay/errors";
import { openExchange } from "@/lib/relay/upstream";
import { agentForChannel } from "@/lib/relay/memory/runtime";
import { LOG_TYPE } from "@/lib/logs/write";
import { describeConnectError } from "@/lib/relay/probe/upstream";
import { hideSecrets } from "@/lib/net/mask";
import { type ChannelJob, startChannelJob } from "@/lib/channels/jobs";

/** time: milliseconds. */
export type ChannelTestResult = { success: boolean; message: string; time: number };

/** Who runs a test: its log row is theirs. */
export type ChannelTester = { id: number; username: string };

export const TEST_LOG_TOKEN_NAME = "模型测试";

type Probe = ChannelTestResult & { status: number; disable: boolean; model: string; prompt_tokens: number; completion_tokens: number };

const TEST_TIMEOUT_MS = 30_000;
/** A test's answer is read up to this size. */
const TEST_BODY_LIMIT = 4 * 1024 * 1024;

function testModelOf(ch: RoutingChannel, requested?: string): string {
  return requested || ch.test_model || ch.models[0] || "gpt-4o-mini";
}

/** A multi-key channel is tested with one key: its first enabled one (the first key when none is). */
function withTestKey(ch: RoutingChannel): RoutingChannel {
  if (!isMultiKeyMode(ch.multi_key_mode)) return ch;
  const keys = splitChannelKeys(ch.type, ch.key, ch.multi_key_mode);
  return { ...ch, key: keys.find((k) => !ch.disabled_keys.has(channelKeyHash(k))) ?? keys[0] ?? "" };
}

/** Sends the test request; returns the outcome without changing anything. */
async function probe(ch: RoutingChannel, model: string, options: OptionValues): Promise<Probe> {
  const none = { time: 0, status: 0, disable: false, model, prompt_tokens: 0, completion_tokens: 0 };
  const adapter = getProvider(ch.type);
  // A type the relay does not serve is not sent anywhere: the test says why.
  if (!adapter) return { ...none, success: false, message: relayRefusal(ch.type) ?? "未知的渠道类型" };
  const config = toChannelConfig(withTestKey(ch));
  const upstreamModel = resolveUpstreamModel(config, model);
  const mode = adapter.supportedModes.has("chat") ? "chat" : adapter.supportedModes.has("embeddings") ? "embeddings" : null;
  if (!mode) return { ...none, success: false, message: "该渠道类型不支持测试" };
  const body =
    mode === "chat"
      ? {
          model: upstreamModel,
          messages: [{ role: "user", content: "hi" }],
          ...(/^o\d/.test(upstreamModel) ? { max_completion_tokens: 1 } : { max_tokens: 1 }),
        }
      : { model: upstreamModel, input: "hi" };
  const path = OPENAI_PATHS[mode];
  const failed = (error: UpstreamError, status: number, time: number): Probe => ({
    ...none,
    success: false,
    // Upstreams echo keys ("Incorrect API key provided: …"); admins below root never read one.
    message: hideSecrets(error.message, ch.key),
    time,
    status,
    disable: shouldDisableChannel(status, error, ch.type),
  });
  const started = Date.now();
  try {
    const dispatcher = agentForChannel(ch, options);
    const built = adapter.buildRequest({
      channel: config,
      dispatcher,
      mode,
      upstreamModel,
      clientPath: path,
      body: JSON.stringify(body),
      contentType: "application/json",
      stream: false,
      json: body,
    });
    const up = built instanceof Promise ? await built : built;
    // The relay's own upstream client (its transports, its dispatcher), not a second one.
    const exchange = openExchange(dispatcher, up);
    const timer = setTimeout(() => exchange.abort(new Error(`测试超时（${TEST_TIMEOUT_MS / 1000} 秒）`)), TEST_TIMEOUT_MS);
    let text: string;
    try {
      await exchange.response;
      text = (await exchange.bytes(TEST_BODY_LIMIT)).toString("utf8");
    } finally {
      clearTimeout(timer);
    }
    const time = Date.now() - started;
    const status = exchange.status;
    if (status >= 200 && status < 300) {
      const raw = jsonValue(text);
      // A proxy's HTML page or login portal answers 200 too; the relay refuses it, so does a test.
      if (raw === undefined) {
        const type = String(exchange.headers["content-type"] ?? "");
        return { ...none, success: false, message: `上游的应答不是 JSON (content-type: ${type || "无"})`, time, status };
      }
      // Vendors that do not speak OpenAI's protocol are read through the relay's converter,
      // which turns a vendor's 200-with-error into OpenAI's `{error}` as the relay sees it.
      const answer = up.response && !(isObj(raw) && raw.error) ? jsonObject(up.response.json(raw).body) : isObj(raw) ? raw : null;
      if (answer && !answer.error) return { ...none, ...usageOf(answer), success: true, message: "", time, status };
      const error = answer ? errorFromJson(status, answer) : null;
      if (error) return failed(error, status, time);
    }
    return failed(parseUpstreamError(status, text), status, time);
  } catch (error) {
    // The adapter's own refusal (a malformed key, an access token the vendor refused) says why;
    // otherwise the admin testing the channel is told which address was refused and why.
    const message = error instanceof RelayError ? error.message : describeConnectError(error);
    return { ...none, success: false, message: hideSecrets(message, ch.key), time: Date.now() - started };
  }
}

/** The parsed JSON, or undefined when the text is not JSON. */
function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function jsonObject(text: string | Uint8Array): Record<string, unknown> | null {
  const v = jsonValue(typeof text === "string" ? text : Buffer.from(text).toString("utf8"));
  return isObj(v) ? v : null;
}

/** The token counts of a successful answer, when it reports them. */
function usageOf(answer: Record<string, unknown>): { prompt_tokens: number; completion_tokens: number } {
  const usage = (answer.usage ?? {}) as { prompt_tokens?: unknown; completion_tokens?: unknown };
  const count = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < 2 ** 31 ? v : 0);
  return { prompt_tokens: count(usage.prompt_tokens), completion_tokens: count(usage.completion_tokens) };
}

/** Tests one channel, records its response time and applies the auto enable/disable rules. */
export async function testChannel(id: number, tester: ChannelTester, model?: string): Promise<ChannelTestResult> {
  const ch = (await loadChannelsForRouting()).find((c) => c.id === id);
  if (!ch) throw notFound("渠道不存在");
  const { result } = await runTest(ch, tester, model);
  return result;
}

type Applied = { result: ChannelTestResult; disabled: boolean; enabled: boolean };

async function runTest(ch: RoutingChannel, tester: ChannelTester, model?: string): Promise<Applied> {
  const options = await getOptions();
  const r = await probe(ch, testModelOf(ch, model), options);
  await writeTestLog(ch, tester, r);
  return applyTest(ch, r, options);
}

async function writeTestLog(ch: RoutingChannel, tester: ChannelTester, r: Probe): Promise<void> {
  const db = await getLogDb();
  await db.log.create({
    data: {
      user_id: tester.id,
      username: tester.username,
      created_at: nowSeconds(),
      type: r.success ? LOG_TYPE.consume : LOG_TYPE.error,
      content: r.success ? `渠道 #${ch.id} 测试成功，不计费` : `渠道 #${ch.id} 测试失败：${r.message}`.slice(0, 2000),
      token_name: TEST_LOG_TOKEN_NAME,
      model_name: r.model,
      quota: 0n,
      prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens,
      use_time: Math.round(r.time / 1000),
      channel_id: ch.id,
      other: JSON.stringify({ channel_test: true, frt: r.time }),
    },
  });
}

async function applyTest(ch: RoutingChannel, r: Probe, o: OptionValues): Promise<Applied> {
  const db = await getDb();
  await db.channel.update({ where: { id: ch.id }, data: { response_time: r.time, test_time: nowSeconds() } });
  publishInvalidation({ kind: "channels" });
  const thresholdMs = Number(o.ChannelDisableThreshold) * 1000;
  const tooSlow = thresholdMs > 0 && r.time > thresholdMs;
  let disabled = false;
  let enabled = false;
  if (r.success && !tooSlow && ch.status === CHANNEL_STATUS.autoDisabled && o.AutomaticEnableChannelEnabled) {
    enabled = await setChannelStatus(ch.id, CHANNEL_STATUS.enabled);
  } else if ((r.disable || tooSlow) && ch.status === CHANNEL_STATUS.enabled && ch.auto_ban && o.AutomaticDisableChannelEnabled) {
    const reason = tooSlow
      ? `响应时间 ${(r.time / 1000).toFixed(2)}s 超过阈值 ${o.ChannelDisableThreshold}s`
      : `测试失败：${r.message}`.slice(0, 500);
    disabled = await setChannelStatus(ch.id, CHANNEL_STATUS.autoDisabled, reason);
  }
  return { result: { success: r.success, message: r.message, time: r.time }, disabled, enabled };
}

/**
 * `GET /api/channel/test`: tests every channel that is enabled or auto-disabled, one after
 * another, in the background. Returns at once with the run's record (or the record of the run
 * already going, `started: false`); progress: getChannelJobs().test.
 */
export function testAllChannels(tester: ChannelTester): Promise<{ started: boolean; job: ChannelJob }> {
  return startChannelJob(
    "test",
    async () =>
      (await loadChannelsForRouting()).filter((c) => c.status === CHANNEL_STATUS.enabled || c.status === CHANNEL_STATUS.autoDisabled),
    async (ch) => {
      const { result, disabled, enabled } = await runTest(ch, tester);
      return { ok: result.success, message: result.message, disabled, enabled };
    },
  );
}
