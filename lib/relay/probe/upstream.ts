// GET requests the console sends to a channel's upstream on an admin's behalf (model lists,
// balances). They go through the same connection pools as the relay and the channel test, so the
// address rules hold here too: an address an admin below root set reaches no internal host while
// ChannelPrivateAddressAllowed is off (see agentForChannel). Upstream text can echo the key or other
// credentials; they are cut out of every message before an admin could read it (hideSecrets).
import { request } from "undici";
import { notFound } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { openChannelKey } from "@/lib/channels/routing";
import { splitChannelKeys } from "@/lib/channels/keys";
import { InternalAddressError } from "@/lib/net/public-connect";
import { getOptions } from "@/lib/options";
import { describeUpstreamNetworkError, parseUpstreamError } from "@/lib/relay/errors";
import { agentForChannel } from "@/lib/relay/memory/runtime";
import { hideSecrets } from "@/lib/net/mask";

/** Where a console request goes and with what: a stored channel, or the editor's unsaved form. */
export type UpstreamTarget = { type: number; base_url: string; key: string; address_by_root: boolean };

/** A stored channel as a console request needs it: its address, opened key and status. */
export type StoredTarget = UpstreamTarget & { id: number; name: string; status: number; auto_ban: boolean };

const TARGET_SELECT = {
  id: true,
  name: true,
  type: true,
  base_url: true,
  key: true,
  address_by_root: true,
  status: true,
  auto_ban: true,
  multi_key_mode: true,
} as const;

type TargetRow = Omit<StoredTarget, "auto_ban"> & { auto_ban: number; multi_key_mode: string };
/** A multi-key channel asks with its first key (model lists and balances are the account's, whichever key asks). */
const toTarget = ({ multi_key_mode, ...row }: TargetRow): StoredTarget => ({
  ...row,
  key: splitChannelKeys(row.type, openChannelKey(row.key), multi_key_mode)[0] ?? "",
  auto_ban: row.auto_ban === 1,
});

export async function loadChannelTarget(id: number): Promise<StoredTarget> {
  const db = await getDb();
  const row = await db.channel.findUnique({ where: { id }, select: TARGET_SELECT });
  if (!row) throw notFound("渠道不存在");
  return toTarget(row);
}

/** The channels with these statuses and types, in id order. */
export async function loadChannelTargets(where: { status: number; types: readonly number[] }): Promise<StoredTarget[]> {
  const db = await getDb();
  const rows = await db.channel.findMany({
    where: { status: where.status, type: { in: [...where.types] } },
    select: TARGET_SELECT,
    orderBy: { id: "asc" },
  });
  return rows.map(toTarget);
}

/** A failed upstream call; the message is safe to show an admin (keys and tokens are cut out). */
export class UpstreamCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UpstreamCallError";
  }
}

const TIMEOUT_MS = 30_000;
/** Model lists of large vendors run to a few hundred KB; nothing legitimate is near this. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The message an admin reads for a failed connection: the refused internal address, or a generic network reason. */
export function describeConnectError(error: unknown): string {
  if (error instanceof InternalAddressError) {
    return `${error.message}，ChannelPrivateAddressAllowed 已关闭，不允许管理员设置的渠道连接这类地址`;
  }
  return describeUpstreamNetworkError(error).message;
}

async function readCapped(body: AsyncIterable<Buffer | Uint8Array>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * GETs `url` (on the target's host) with `headers` and returns the parsed JSON of a 2xx answer.
 * Throws UpstreamCallError with the reason otherwise: the upstream's error message for a non-2xx
 * answer, the network reason, the refused internal address, or a body that is not JSON.
 */
export async function getUpstreamJson(target: UpstreamTarget, url: string, headers: Record<string, string>): Promise<unknown> {
  const options = await getOptions();
  let status: number;
  let text: string | null;
  try {
    const res = await request(url, {
      method: "GET",
      headers: { accept: "application/json", ...headers },
      dispatcher: agentForChannel(target, options),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = res.statusCode;
    text = await readCapped(res.body);
    if (text === null) {
      // Destroying undici's body makes it emit "Request aborted": without a listener that would be
      // an uncaught error taking the process down.
      res.body.on("error", () => undefined);
      res.body.destroy();
    }
  } catch (error) {
    throw new UpstreamCallError(hideSecrets(describeConnectError(error), target.key));
  }
  if (text === null) throw new UpstreamCallError("上游响应过大");
  if (status < 200 || status >= 300) {
    const { message } = parseUpstreamError(status, text);
    throw new UpstreamCallError(hideSecrets(`HTTP ${status}：${message}`, target.key));
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamCallError(`上游返回的不是 JSON（HTTP ${status}）`);
  }
}

/** `Authorization: Bearer <key>`, the key as the relay sends it. */
export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key.trim()}` });
