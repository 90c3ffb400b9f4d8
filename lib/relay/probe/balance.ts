// Channel balances: the vendor's own balance endpoint, read with the channel's key, stored in the
// channel's `balance` (US$, as the console shows it) with `balance_updated_time`. Vendors and wire
// formats are new-api's (controller/channel-billing.go), for the types Qiao has:
//   1  OpenAI       GET {base}/v1/dashboard/billing/subscription → hard_limit_usd, has_payment_method
//                   GET {base}/v1/dashboard/billing/usage?start_date&end_date → total_usage (US cents)
//                   balance = hard_limit_usd − total_usage / 100
//   25 Moonshot     GET {base}/v1/users/me/balance → data.available_balance
//   40 SiliconFlow  GET {base}/v1/user/info → data.totalBalance (a string)
//   43 DeepSeek     GET {base}/user/balance → balance_infos[].total_balance per currency
// Amounts in yuan are turned into US$ with the `Price` option (yuan per US$), as new-api does for
// Moonshot: Moonshot and SiliconFlow bill in yuan on their .cn sites and in US$ on their
// international ones (api.moonshot.ai, api.siliconflow.com); DeepSeek names the currency.
// Other types have no balance endpoint Qiao knows of; asking for theirs changes nothing.
import { z } from "zod";
import { ApiError, badRequest } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { nowSeconds } from "@/lib/db/num";
import { CHANNEL_TYPES } from "@/lib/channels/catalog";
import { CHANNEL_STATUS, channelBaseUrl } from "@/lib/channels/fields";
import { type ChannelJob, startChannelJob, type StepOutcome } from "@/lib/channels/jobs";
import { setChannelStatus } from "@/lib/channels/routing";
import {
  bearer,
  getUpstreamJson,
  loadChannelTarget,
  loadChannelTargets,
  type StoredTarget,
  UpstreamCallError,
  type UpstreamTarget,
} from "@/lib/relay/probe/upstream";
import { getOptions } from "@/lib/options";
import { hideSecrets } from "@/lib/net/mask";

export const BALANCE_MSG = {
  unsupported: "该渠道类型不支持查询余额",
  failed: "查询余额失败",
  badAnswer: "上游返回的余额格式无法识别",
  noPrice: "Price（每美元人民币价格）为 0，无法把人民币余额换算为美元",
  lowBalance: "余额不足",
  started: "已开始更新所有已启用渠道的余额，请稍后刷新查看结果",
  alreadyRunning: "余额更新已在进行中",
} as const;

type Money = { amount: number; currency: "USD" | "CNY" };

/** A number or a numeric string (vendors send both). */
const amount = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);

const openAISubscription = z.object({ hard_limit_usd: z.number(), has_payment_method: z.boolean().optional() });
const openAIUsage = z.object({ total_usage: z.number() });
const moonshotBalance = z.object({
  code: z.number().optional(),
  status: z.boolean().optional(),
  data: z.object({ available_balance: amount }),
});
const siliconFlowInfo = z.object({ code: z.number(), message: z.string().optional(), data: z.object({ totalBalance: amount }).nullish() });
const deepSeekBalance = z.object({ balance_infos: z.array(z.object({ currency: z.string(), total_balance: amount })) });

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UpstreamCallError(BALANCE_MSG.badAnswer);
  return parsed.data;
}

const ymd = (d: Date) => d.toISOString().slice(0, 10);

/** International sites of vendors that bill in yuan on their .cn sites. */
function billsInDollars(base: string, internationalHost: RegExp): boolean {
  try {
    return internationalHost.test(new URL(base).hostname);
  } catch {
    return false;
  }
}

type BalanceReader = (target: UpstreamTarget, base: string) => Promise<Money>;

const READERS: Partial<Record<number, BalanceReader>> = {
  [CHANNEL_TYPES.OpenAI]: async (target, base) => {
    const sub = parse(openAISubscription, await getUpstreamJson(target, `${base}/v1/dashboard/billing/subscription`, bearer(target.key)));
    const today = new Date();
    // With a payment method the limit is monthly; without, the grant covers the last 100 days (new-api's window).
    const start = sub.has_payment_method ? `${ymd(today).slice(0, 8)}01` : ymd(new Date(today.getTime() - 100 * 86_400_000));
    const usage = parse(
      openAIUsage,
      await getUpstreamJson(target, `${base}/v1/dashboard/billing/usage?start_date=${start}&end_date=${ymd(today)}`, bearer(target.key)),
    );
    return { amount: sub.hard_limit_usd - usage.total_usage / 100, currency: "USD" };
  },
  [CHANNEL_TYPES.Moonshot]: async (target, base) => {
    const res = parse(moonshotBalance, await getUpstreamJson(target, `${base}/v1/users/me/balance`, bearer(target.key)));
    if (res.status === false || (res.code !== undefined && res.code !== 0)) throw new UpstreamCallError(`code ${res.code}`);
    return { amount: res.data.available_balance, currency: billsInDollars(base, /(^|\.)moonshot\.ai$/) ? "USD" : "CNY" };
  },
  [CHANNEL_TYPES.SiliconFlow]: async (target, base) => {
    const res = parse(siliconFlowInfo, await getUpstreamJson(target, `${base}/v1/user/info`, bearer(target.key)));
    if (res.code !== 20000 || !res.data) throw new UpstreamCallError(`code ${res.code}${res.message ? `，${res.message}` : ""}`);
    return { amount: res.data.totalBalance, currency: billsInDollars(base, /(^|\.)siliconflow\.com$/) ? "USD" : "CNY" };
  },
  [CHANNEL_TYPES.DeepSeek]: async (target, base) => {
    const res = parse(deepSeekBalance, await getUpstreamJson(target, `${base}/user/balance`, bearer(target.key)));
    const usd = res.balance_infos.find((b) => b.currency === "USD");
    if (usd) return { amount: usd.total_balance, currency: "USD" };
    const cny = res.balance_infos.find((b) => b.currency === "CNY");
    if (cny) return { amount: cny.total_balance, currency: "CNY" };
    throw new UpstreamCallError(BALANCE_MSG.badAnswer);
  },
};

/** Types with a balance endpoint, for the console (the update-balance action shows only for them). */
export const BALANCE_TYPES: readonly number[] = Object.keys(READERS).map(Number);

async function toDollars(money: Money): Promise<number> {
  if (money.currency === "USD") return money.amount;
  const price = (await getOptions()).Price;
  if (!(price > 0)) throw new ApiError(BALANCE_MSG.noPrice, 400);
  return money.amount / price;
}

/** Reads and stores the balance of a loaded channel; returns it in US$. */
async function refreshBalance(target: StoredTarget): Promise<number> {
  const read = READERS[target.type];
  if (!read) throw badRequest(BALANCE_MSG.unsupported);
  let money: Money;
  try {
    money = await read(target, channelBaseUrl(target.type, target.base_url));
  } catch (error) {
    // A vendor's own error text (code …, message) may quote the key: masked like every upstream message.
    if (error instanceof UpstreamCallError) throw new ApiError(`${BALANCE_MSG.failed}：${hideSecrets(error.message, target.key)}`, 502);
    throw error;
  }
  const balance = Math.round((await toDollars(money)) * 1e6) / 1e6;
  const db = await getDb();
  await db.channel.update({ where: { id: target.id }, data: { balance, balance_updated_time: nowSeconds() } });
  return balance;
}

/**
 * `GET /api/channel/update_balance/{id}`: queries the vendor, stores the balance with the time and
 * returns it (US$). A type without a balance endpoint is refused and nothing changes.
 */
export async function updateChannelBalance(id: number): Promise<number> {
  return refreshBalance(await loadChannelTarget(id));
}

/**
 * One channel of the update-all run. A balance at or below zero disables the channel ("余额不足",
 * status 3) when AutomaticDisableChannelEnabled is on and the channel allows auto-ban (new-api's rule).
 */
async function balanceStep(target: StoredTarget): Promise<StepOutcome> {
  const balance = await refreshBalance(target);
  if (balance > 0 || !target.auto_ban || !(await getOptions()).AutomaticDisableChannelEnabled) return { ok: true };
  return { ok: true, disabled: await setChannelStatus(target.id, CHANNEL_STATUS.autoDisabled, BALANCE_MSG.lowBalance) };
}

const enabledChannelsWithBalance = () => loadChannelTargets({ status: CHANNEL_STATUS.enabled, types: BALANCE_TYPES });

/**
 * `GET /api/channel/update_balance`: updates every enabled channel whose type has a balance
 * endpoint, one after another in the background. Returns at once with the run's record (or the
 * record of the run already going, `started: false`); progress: getChannelJobs().balance.
 */
export function updateAllChannelBalances(): Promise<{ started: boolean; job: ChannelJob }> {
  return startChannelJob("balance", enabledChannelsWithBalance, balanceStep);
}
