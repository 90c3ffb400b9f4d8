// One submit of any platform: the caller's key, a channel, the price, the charge, the vendor's
// answer, and then the task accepted (its consume log row written) or refused (its charge
// returned). Platforms build the vendor request and read its answer (`send`); this module owns
// everything around it, so the money rules hold for every platform alike.
import { plain, quotaForUnits } from "@/lib/billing/price";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { setChannelStatus } from "@/lib/channels/routing";
import { admitCall, type CallLimits, LimitRefusal } from "@/lib/limits/engine";
import type { LogRow } from "@/lib/logs/insert";
import { LOG_TYPE } from "@/lib/logs/write";
import { getOptions, loadedOptions, type OptionValues } from "@/lib/options";
import { noChannelError, RelayError } from "@/lib/relay/errors";
import type { RelayRequest } from "@/lib/relay/http";
import { priceFor } from "@/lib/relay/call/pricing";
import { isTasksOnlyType } from "@/lib/relay/providers";
import { checkModelAllowed, keyCaller, type RelayCaller, shortfallRefusal } from "@/lib/relay/memory/key-auth";
import {
  cachedRoutingTable,
  pickChannel,
  type RouteChannel,
  type RoutingTable,
  routingTable,
  startRelayState,
} from "@/lib/relay/memory/key-user-channel-cache";
import { acceptTask, chargeTask, refundTask, type TaskColumns } from "@/lib/tasks/charge";
import type { TaskPlatform } from "@/lib/tasks/types";
import { componentLogger } from "@/lib/log";

const taskLog = componentLogger("tasks");

/** The key's caller of a task route (the door may have checked it before the body). */
export async function taskCaller(req: RelayRequest): Promise<RelayCaller> {
  // The key, user and channel caches follow invalidations once started; a process that has served
  // only task routes (no chat call started the ledger, which starts them) must start them itself.
  startRelayState();
  const caller = keyCaller(req);
  return caller instanceof Promise ? await caller : caller;
}

export async function relayOptions(): Promise<OptionValues> {
  return loadedOptions() ?? (await getOptions());
}

export async function currentRoutingTable(): Promise<RoutingTable> {
  startRelayState();
  return cachedRoutingTable() ?? (await routingTable());
}

/** What the vendor said to a submit. */
export type SubmitOutcome =
  | {
      accepted: true;
      /** The vendor's task id. */
      vendorId: string;
      /** Columns to write with it (status, progress, code, start_time…). */
      columns: TaskColumns;
    }
  | {
      accepted: false;
      /** Why; stored as the row's fail_reason. */
      failReason: string;
      columns?: TaskColumns;
      /** Another channel may do better (a 5xx, a network error): tried when the call is not tied to one. */
      retry?: boolean;
      /** The channel itself is broken (Midjourney's code 3): disabled when auto-ban allows. */
      disableChannel?: boolean;
    };

export type SubmitPlan = {
  platform: TaskPlatform;
  /** The priced model: mj_imagine, suno_music, sora-2… */
  model: string;
  /** The row's action (IMAGINE, MUSIC, VIDEO…), shown in the console and the log. */
  action: string;
  /** Billing units: 1 for a call, seconds for a video. */
  units: number;
  /** A follow-up goes to the channel of the task it continues; it must still be enabled. */
  channelId?: number;
  /** The row's initial columns (prompt, submit_time, properties…). */
  columns: TaskColumns;
  /** The consume log's content after the price part ("，操作 IMAGINE，ID …" is added). */
  describe?: (vendorId: string) => string;
};

export type SubmitResult = {
  /** The task row's id. */
  id: number;
  channel: RouteChannel;
  outcome: SubmitOutcome;
  quota: bigint;
};

/**
 * Charges, sends and settles one submit. Throws RelayError for what is refused before the vendor
 * is asked (model not allowed, no channel, no price, not enough quota); resolves with the vendor's
 * outcome otherwise (a refused submit has been refunded). `send` may be called once per channel
 * tried; it must not throw for an answer it can read (return accepted: false instead).
 */
export async function submitTask(
  req: RelayRequest,
  requestId: string,
  caller: RelayCaller,
  plan: SubmitPlan,
  send: (channel: RouteChannel) => Promise<SubmitOutcome>,
): Promise<SubmitResult> {
  const startedAt = Date.now();
  const options = await relayOptions();
  checkModelAllowed(caller, plan.model);
  const table = await currentRoutingTable();
  const tried = new Set<number>();
  const pinned = plan.channelId ?? caller.pinnedChannelId;
  const next = (): RouteChannel | null => {
    if (pinned !== null && pinned !== undefined) {
      if (tried.size) return null;
      const channel = table.byId.get(pinned);
      if (!channel) throw new RelayError(403, `渠道 #${pinned} 不存在`);
      if (channel.row.status !== CHANNEL_STATUS.enabled) throw new RelayError(403, "该渠道已被禁用");
      if (!plan.platform.channelTypes.includes(channel.row.type))
        throw new RelayError(400, `渠道 #${pinned} 不能执行此任务`, { code: "invalid_api_type" });
      return channel;
    }
    // Midjourney and Suno channels are task-only; OpenAI and Azure ones (videos) are relayed channels.
    const tiers = plan.platform.channelTypes.every(isTasksOnlyType) ? table.tasksByGroupModel : table.byGroupModel;
    for (;;) {
      const channel = pickChannel(table, caller.group, plan.model, tried, null, Math.random, tiers);
      if (!channel) return null;
      if (plan.platform.channelTypes.includes(channel.row.type)) return channel;
      tried.add(channel.row.id); // another platform's channel listing the same model
    }
  };
  let channel = next();
  if (!channel) throw noChannelError(caller.group, plan.model);

  const { result } = priceFor(options, plan.model, caller.group);
  if (!result.ok) throw new RelayError(result.error.status, result.error.message, { code: result.error.code });
  const pricing = result.pricing;
  if (pricing.kind !== "price") {
    throw new RelayError(400, `模型 ${plan.model} 未设置按次价格（ModelPrice），任务按次计费`, { code: "model_price_error" });
  }
  const priced = quotaForUnits(pricing, plan.units);
  const quota = BigInt(priced.quota);
  // Key, user, group and model limits (lib/limits), before the charge: a refusal moves no quota
  // and writes no row. The lease is released once the submit has its answer, whatever it is.
  const limits = await admitSubmit(options, caller, plan.model, priced.quota);
  let billed = 0;
  try {
    const charged = await chargeTask({
      table: plan.platform.table,
      requestId,
      userId: caller.user.id,
      keyId: caller.key?.id ?? 0,
      keyLimited: !!caller.key && !caller.key.unlimited,
      channelId: channel.row.id,
      quota,
      columns: { ...plan.columns, action: plan.action, ...(plan.platform.table === "tasks" ? { platform: plan.platform.name } : {}) },
    });
    if (!charged.ok) throw await shortfallRefusal(caller, charged.shortfall, priced.quota);

    const retries = pinned === null || pinned === undefined ? Math.max(0, Number(options.RetryTimes) || 0) : 0;
    let outcome: SubmitOutcome;
    for (let attempt = 0; ; attempt++) {
      tried.add(channel.row.id);
      try {
        outcome = await send(channel);
      } catch (error) {
        await refundTask(plan.platform.table, charged.id, { reason: error instanceof Error ? error.message : String(error) });
        throw error;
      }
      if (outcome.accepted || !outcome.retry || attempt >= retries) break;
      const another = next();
      if (!another) break;
      channel = another;
    }

    if (outcome.accepted) {
      const content =
        `模型价格 ${plain(pricing.modelPrice)}，分组倍率 ${plain(pricing.groupRatio)}` +
        (plan.units !== 1 ? `，数量 ${plain(plan.units)}` : "") +
        (plan.describe ? plan.describe(outcome.vendorId) : `，操作 ${plan.action}，ID ${outcome.vendorId}`);
      const log: LogRow | null = options.LogConsumeEnabled
        ? {
            user_id: caller.user.id,
            created_at: Math.floor(Date.now() / 1000),
            type: LOG_TYPE.consume,
            content,
            username: caller.user.username,
            token_name: caller.key?.name ?? "",
            model_name: plan.model,
            quota,
            prompt_tokens: 0,
            completion_tokens: 0,
            use_time: Math.round((Date.now() - startedAt) / 1000),
            is_stream: false,
            channel_id: channel.row.id,
            token_id: caller.key?.id ?? 0,
            group: caller.group,
            request_id: requestId,
            other: JSON.stringify({
              model_price: pricing.modelPrice,
              group_ratio: pricing.groupRatio,
              units: plan.units,
              task_id: outcome.vendorId,
              request_path: req.path,
            }),
          }
        : null;
      if (await acceptTask(plan.platform.table, charged.id, { channelId: channel.row.id, quota, columns: outcome.columns }, log)) {
        billed = priced.quota;
      } else {
        // The poller failed and refunded the row while the vendor took longer than any submit
        // should: the vendor's task runs unbilled rather than billed twice or refunded twice.
        taskLog.warn({ requestId, vendorTaskId: outcome.vendorId }, "task accepted after its row had been refunded");
      }
    } else {
      if (outcome.disableChannel && channel.row.auto_ban && options.AutomaticDisableChannelEnabled) {
        const channelId = channel.row.id;
        void setChannelStatus(channelId, CHANNEL_STATUS.autoDisabled, outcome.failReason).catch((e) =>
          taskLog.error({ err: e, requestId, channelId }, "auto-disable failed"),
        );
      }
      await refundTask(plan.platform.table, charged.id, {
        reason: outcome.failReason,
        columns: { ...outcome.columns, channel_id: channel.row.id },
      });
    }
    return { id: charged.id, channel, outcome, quota };
  } finally {
    limits?.release(0, billed);
  }
}

/** The submit's limits admission (lib/limits: rpm, concurrency and the key's budget; no tpm); a refusal is the platform's 429. */
async function admitSubmit(options: OptionValues, caller: RelayCaller, model: string, quota: number): Promise<CallLimits | null> {
  try {
    return await admitCall(options, { key: caller.key, userId: caller.user.id, group: caller.group }, model, null, quota);
  } catch (error) {
    if (!(error instanceof LimitRefusal)) throw error;
    throw new RelayError(429, error.message, { code: "rate_limit_exceeded", headers: error.headers });
  }
}
