// How each new-api / one-api table becomes Qiao rows: per batch of source rows, a decision for each
// (import these columns, or skip it and why), and how one decided row is written. Columns are read
// by presence (lib/import-new-api/source.ts), so one mapper serves every version. The rows written
// are the ones the product writes: keys stored by lib/tokens/keys and lib/redemptions/keys, channel
// keys sealed, abilities from lib/channels/abilities, usernames keyed by lib/users/username.
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import type { DirectDb, Row } from "@/lib/db/direct";
import { big, bool, int, INT_COLUMN_MAX, str } from "@/lib/db/num";
import { seal } from "@/lib/crypto/secret-box";
import { hashAccessToken } from "@/lib/auth/authenticate";
import { verifyPassword } from "@/lib/auth/password";
import { ROLE } from "@/lib/auth/roles";
import { DEFAULT_ROOT } from "@/lib/users/root-account";
import { usernameKey } from "@/lib/users/username";
import { hashTokenKey, storedTokenKey } from "@/lib/tokens/keys";
import { hashRedemptionKey, storedRedemptionKey } from "@/lib/redemptions/keys";
import { abilityRowsFor } from "@/lib/channels/abilities";
import { CHANNEL_TYPES, isChannelType } from "@/lib/channels/catalog";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { channelKeyHash } from "@/lib/channels/key-hash";
import { CHANNEL_KEY_STATUS } from "@/lib/channels/keys";
import { ORDER_STATUS } from "@/lib/payments/orders";
import { fromOneApiChannel } from "./one-api-channels";
import type { Flavor, SourceDb } from "./source";

export type Tx = Prisma.TransactionClient;

/** The tables whose rows are remembered one by one in import_map (logs use a cursor instead). */
export const MAPPED_TABLES = ["users", "tokens", "channels", "redemptions", "top_ups", "midjourneys", "tasks", "quota_data"] as const;
export type MappedTable = (typeof MAPPED_TABLES)[number];

/** Old id → new id of every row imported so far (negative while a dry run only plans it). */
export type IdMaps = Record<MappedTable, Map<number, number>>;

export type Decision<T> = { data: T; note?: string } | { skip: string; conflict?: boolean };

export type ImportContext = {
  db: Db;
  direct: DirectDb;
  ids: IdMaps;
  /** Username keys, token keys and codes taken by rows of this run, so two source rows that clash are caught in a dry run too. */
  claimed: Set<string>;
  /** The target's root account that an imported root may take over (see decideUsers), once. */
  adoptableRoot: { id: number } | null | undefined;
  /** The target root this run took over, if any (its caches must drop it). */
  adoptedRoot?: number;
  /** Which gateway wrote the source: one-api numbers its channel types its own way. */
  flavor: Flavor;
  /** The source install, read-only: a row that refers to another table's row reads it there. */
  source: SourceDb;
  /** The source's QuotaPerUnit option (new-api's default, 500 000, is Qiao's too): what a paid order credited per unit of amount. */
  quotaPerUnit: bigint;
};

/** The quota a row carries, for the before/after sums. */
export type SumName = "users_quota" | "users_used_quota" | "tokens_remain_quota" | "redemptions_unused_quota";

export type TableSpec<T> = {
  table: MappedTable;
  /** The source columns the mapper reads; any other column holding a value is reported as not carried over. */
  reads: readonly string[];
  sums?: (row: Row) => Partial<Record<SumName, bigint>>;
  decide(rows: Row[], ctx: ImportContext): Promise<Decision<T>[]>;
  /** Writes one decided row; answers its new id. */
  write(tx: Tx, data: T): Promise<number>;
};

export const IMPORT_MSG = {
  ownerMissing: (id: number) => `所属用户 #${id} 未导入`,
  usernameTaken: (name: string) => `用户名 ${name} 已被占用`,
  usernameEmpty: "用户名为空",
  tokenKeyTaken: "相同的令牌密钥已存在",
  tokenKeyInvalid: "令牌密钥不是字母和数字",
  codeTaken: "相同的兑换码已存在",
  codeEmpty: "兑换码为空",
  tradeNoTaken: (no: string) => `订单号 ${no} 已存在`,
  orderStatus: (status: string) => `订单状态 ${status} 无法对应`,
  bucketTaken: "同一用户、模型和时间的统计已存在",
  affCodeTaken: (code: string) => `邀请码 ${code} 已被占用，导入时留空`,
  accessTokenTaken: "系统访问令牌已被占用，导入时留空",
  bindingTaken: (what: string, value: string) => `${what} ${value} 已属于 Qiao 的其他账户，导入时留空`,
  channelType: (type: number) => `渠道类型 ${type} 不受支持，导入后为禁用状态`,
  keyKind: (vendor: string, needs: string) => `${vendor} 渠道使用 API Key，Qiao 的 ${vendor} 渠道需要${needs}，导入后为禁用状态`,
  rootAdopted: (id: number) => `源 root 账户接管了 Qiao 仍用默认密码的 root（#${id}）`,
  rootStillDefault: "Qiao 的 root 账户仍使用默认密码 123456，请尽快修改",
  tooLarge: (column: string) => `${column} 超出整数范围`,
  codeExpired: "兑换码已过期（Qiao 的兑换码不会过期），导入为已禁用",
  taskUpstreamId: (publicId: string, upstreamId: string) => `任务 ${publicId} 在 Qiao 中以上游任务编号 ${upstreamId} 查询`,
} as const;

const fits = (n: number) => n >= -INT_COLUMN_MAX - 1 && n <= INT_COLUMN_MAX;
const time = (v: unknown) => {
  const n = int(v);
  return fits(n) ? n : 0;
};
/** gorm's DeletedAt as each driver gives it (a Date, or SQLite's text) → a Date, or null. */
function deletedAt(v: unknown): Date | null {
  if (v == null || v === "") return null;
  const d = v instanceof Date ? v : new Date(String(v).replace(" ", "T"));
  return Number.isNaN(d.getTime()) ? new Date(0) : d;
}
const mapped = (ids: Map<number, number>, old: unknown) => ids.get(int(old));
/** A remapped reference that may point at nothing (0): a row not imported leaves it 0. */
const refOrZero = (ids: Map<number, number>, old: unknown) => Math.max(mapped(ids, old) ?? 0, 0);

// ---------------------------------------------------------------------------------------------
// users

type UserData = { adopt?: number; row: Prisma.UserUncheckedCreateInput };

/** The sign-in bindings: each belongs to one account, so one already held in Qiao is left empty. */
const BINDINGS = { github_id: "GitHub", wechat_id: "微信", telegram_id: "Telegram", linux_do_id: "LinuxDO", oidc_id: "OIDC" } as const;
type Binding = keyof typeof BINDINGS;
const BINDING_NAMES = Object.keys(BINDINGS) as Binding[];

/** Who in the target holds each address (lower case, as emailTaken compares) and each binding of these rows. */
async function bindingHolders(ctx: ImportContext, rows: Row[]): Promise<Map<string, number>> {
  const holders = new Map<string, number>();
  const emails = [...new Set(rows.map((r) => str(r.email).toLowerCase()).filter(Boolean))];
  if (emails.length) {
    const found = await ctx.direct.query(
      `SELECT id, LOWER(email) AS e FROM users WHERE LOWER(email) IN (${emails.map(() => "?").join(", ")})`,
      emails,
    );
    for (const f of found) holders.set(`email:${str(f.e)}`, int(f.id));
  }
  const or = BINDING_NAMES.map((b) => ({ [b]: { in: rows.map((r) => str(r[b])).filter(Boolean) } }));
  const found = await ctx.db.user.findMany({
    where: { OR: or },
    select: { id: true, github_id: true, wechat_id: true, telegram_id: true, linux_do_id: true, oidc_id: true },
  });
  for (const f of found) for (const b of BINDING_NAMES) if (f[b]) holders.set(`${b}:${f[b]}`, f.id);
  return holders;
}

const usersSpec: TableSpec<UserData> = {
  table: "users",
  reads: [
    "id",
    "username",
    "password",
    "display_name",
    "role",
    "status",
    "email",
    "github_id",
    "wechat_id",
    "telegram_id",
    "linux_do_id",
    "oidc_id",
    "access_token",
    "quota",
    "used_quota",
    "request_count",
    "group",
    "aff_code",
    "aff_count",
    "aff_quota",
    "aff_history",
    "inviter_id",
    "deleted_at",
    "setting",
    "created_at",
    // Not carried over by design: last_login_at says nothing Qiao uses; auth_version restarts.
    "last_login_at",
    "auth_version",
  ],
  sums: (row) => ({ users_quota: big(row.quota), users_used_quota: big(row.used_quota) }),
  async decide(rows, ctx) {
    const names = rows.map((r) => str(r.username));
    const keys = names.map(usernameKey);
    const affCodes = rows.map((r) => str(r.aff_code)).filter(Boolean);
    const accessHashes = rows
      .map((r) => str(r.access_token))
      .filter(Boolean)
      .map(hashAccessToken);
    const [taken, takenAff, takenAccess] = await Promise.all([
      ctx.db.user.findMany({
        where: { OR: [{ username: { in: names } }, { username_key: { in: keys } }] },
        select: { id: true, username: true, username_key: true, role: true },
      }),
      ctx.db.user.findMany({ where: { aff_code: { in: affCodes } }, select: { aff_code: true } }),
      ctx.db.user.findMany({ where: { access_token_hash: { in: accessHashes } }, select: { access_token_hash: true } }),
    ]);
    const holders = await bindingHolders(ctx, rows);
    const takenBy = new Map<string, (typeof taken)[number]>();
    for (const u of taken) {
      takenBy.set(u.username_key ?? usernameKey(u.username), u);
      takenBy.set(`name:${u.username}`, u);
    }
    const affTaken = new Set(takenAff.map((u) => u.aff_code));
    const accessTaken = new Set(takenAccess.map((u) => u.access_token_hash));
    const out: Decision<UserData>[] = [];
    for (const [i, r] of rows.entries()) {
      const username = names[i]!;
      const key = keys[i]!;
      if (!username) {
        out.push({ skip: IMPORT_MSG.usernameEmpty });
        continue;
      }
      const notes: string[] = [];
      const holder = takenBy.get(key) ?? takenBy.get(`name:${username}`);
      let adopt: number | undefined;
      if (holder || ctx.claimed.has(`user:${key}`)) {
        if (holder && int(r.role) >= ROLE.root && (await adoptable(ctx, holder))) {
          adopt = holder.id;
          ctx.adoptedRoot = holder.id;
          ctx.adoptableRoot = null;
          notes.push(IMPORT_MSG.rootAdopted(holder.id));
        } else {
          out.push({ skip: IMPORT_MSG.usernameTaken(username), conflict: true });
          continue;
        }
      }
      ctx.claimed.add(`user:${key}`);
      /** The value, or "" when another account holds it (the one taken over does not count). */
      const own = (kind: string, label: string, value: string, lookup = value) => {
        if (!value) return "";
        const claim = `${kind}:${lookup}`;
        if ((holders.get(claim) ?? adopt) !== adopt || ctx.claimed.has(claim)) {
          notes.push(IMPORT_MSG.bindingTaken(label, value));
          return "";
        }
        ctx.claimed.add(claim);
        return value;
      };
      const email = own("email", "邮箱", str(r.email), str(r.email).toLowerCase());
      const bindings = Object.fromEntries(BINDING_NAMES.map((b) => [b, own(b, BINDINGS[b], str(r[b]))])) as Record<Binding, string>;
      let affCode: string | null = str(r.aff_code) || null;
      if (affCode && (affTaken.has(affCode) || ctx.claimed.has(`aff:${affCode}`))) {
        notes.push(IMPORT_MSG.affCodeTaken(affCode));
        affCode = null;
      }
      if (affCode) ctx.claimed.add(`aff:${affCode}`);
      let accessHash: string | null = str(r.access_token) ? hashAccessToken(str(r.access_token)) : null;
      if (accessHash && (accessTaken.has(accessHash) || ctx.claimed.has(`access:${accessHash}`))) {
        notes.push(IMPORT_MSG.accessTokenTaken);
        accessHash = null;
      }
      if (accessHash) ctx.claimed.add(`access:${accessHash}`);
      out.push({
        note: notes.join("；") || undefined,
        data: {
          adopt,
          row: {
            username,
            username_key: key,
            display_name: str(r.display_name),
            password: str(r.password),
            email,
            ...bindings,
            group: str(r.group) || "default",
            quota: big(r.quota),
            used_quota: big(r.used_quota),
            request_count: time(r.request_count),
            aff_code: affCode,
            aff_count: time(r.aff_count),
            aff_quota: big(r.aff_quota),
            aff_history_quota: big(r.aff_history),
            // Linked once every user is in (linkInviters): the inviter may come later in id order.
            inviter_id: 0,
            role: int(r.role) || ROLE.user,
            status: int(r.status) || 1,
            access_token_hash: accessHash,
            created_time: time(r.created_at),
            setting: str(r.setting),
            deleted_at: deletedAt(r.deleted_at),
          },
        },
      });
    }
    return out;
  },
  async write(tx, { adopt, row }) {
    if (adopt) {
      const { username: _u, username_key: _k, ...rest } = row;
      await tx.user.update({ where: { id: adopt }, data: { ...rest, auth_version: { increment: 1 } } });
      return adopt;
    }
    return (await tx.user.create({ data: row, select: { id: true } })).id;
  },
};

/**
 * The target's root may be taken over by the source's root only while it is the untouched account
 * a fresh install creates (root / 123456): replacing it loses nothing. Any other clash is a conflict.
 */
async function adoptable(ctx: ImportContext, holder: { id: number; username: string; role: number }): Promise<boolean> {
  if (ctx.adoptableRoot === null) return false;
  if (ctx.adoptableRoot) return ctx.adoptableRoot.id === holder.id;
  const row = await ctx.db.user.findUnique({ where: { id: holder.id }, select: { password: true, role: true, deleted_at: true } });
  const ok =
    !!row &&
    holder.username === DEFAULT_ROOT.username &&
    row.role >= ROLE.root &&
    !row.deleted_at &&
    (await verifyPassword(DEFAULT_ROOT.password, row.password));
  ctx.adoptableRoot = ok ? { id: holder.id } : null;
  return ok;
}

// ---------------------------------------------------------------------------------------------
// tokens

const ALNUM = /^[0-9A-Za-z]+$/;
const tokenKeyOf = (row: Row) => str(row.key).trim().replace(/^sk-/, "");
/** one-api's `subnet` is a comma list; Qiao's allow_ips is one address or CIDR a line (new-api's). */
const ipLines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .join("\n");

const tokensSpec: TableSpec<Prisma.TokenUncheckedCreateInput> = {
  table: "tokens",
  reads: [
    "id",
    "user_id",
    "key",
    "status",
    "name",
    "created_time",
    "accessed_time",
    "expired_time",
    "remain_quota",
    "unlimited_quota",
    "model_limits_enabled",
    "model_limits",
    "allow_ips",
    "used_quota",
    "group",
    "deleted_at",
    "models",
    "subnet",
  ],
  sums: (row) => ({ tokens_remain_quota: bool(row.unlimited_quota) ? 0n : big(row.remain_quota) }),
  async decide(rows, ctx) {
    const hashes = rows.map((r) => hashTokenKey(tokenKeyOf(r)));
    const taken = new Set(
      (await ctx.db.token.findMany({ where: { key_hash: { in: hashes } }, select: { key_hash: true } })).map((t) => t.key_hash),
    );
    return rows.map((r, i): Decision<Prisma.TokenUncheckedCreateInput> => {
      const owner = mapped(ctx.ids.users, r.user_id);
      if (!owner) return { skip: IMPORT_MSG.ownerMissing(int(r.user_id)) };
      const key = tokenKeyOf(r);
      if (!ALNUM.test(key)) return { skip: IMPORT_MSG.tokenKeyInvalid };
      const hash = hashes[i]!;
      if (taken.has(hash) || ctx.claimed.has(`token:${hash}`)) return { skip: IMPORT_MSG.tokenKeyTaken, conflict: true };
      ctx.claimed.add(`token:${hash}`);
      // one-api: `models` (a comma list, empty = every model) and `subnet`.
      const oneApiModels = str(r.models).trim();
      return {
        data: {
          user_id: owner,
          ...storedTokenKey(key),
          name: str(r.name),
          status: int(r.status) || 1,
          created_time: time(r.created_time),
          accessed_time: time(r.accessed_time),
          expired_time: r.expired_time == null ? -1 : time(r.expired_time),
          remain_quota: big(r.remain_quota),
          unlimited_quota: bool(r.unlimited_quota),
          model_limits_enabled: r.model_limits_enabled == null ? oneApiModels !== "" : bool(r.model_limits_enabled),
          model_limits: r.model_limits == null ? oneApiModels : str(r.model_limits),
          allow_ips: ipLines(str(r.allow_ips ?? r.subnet)),
          used_quota: big(r.used_quota),
          group: str(r.group),
          deleted_at: deletedAt(r.deleted_at),
        },
      };
    });
  },
  write: async (tx, data) => (await tx.token.create({ data, select: { id: true } })).id,
};

// ---------------------------------------------------------------------------------------------
// channels

type ChannelData = { row: Prisma.ChannelUncheckedCreateInput; disabledKeys: Prisma.ChannelKeyCreateManyInput[] };

/** new-api's channel_info (latest): the multi-key mode and each key's state, by index into the key lines. */
type ChannelInfo = {
  is_multi_key?: boolean;
  multi_key_mode?: string | number;
  multi_key_status_list?: Record<string, number>;
  multi_key_disabled_reason?: Record<string, string>;
  multi_key_disabled_time?: Record<string, number>;
};

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/** The keys as new-api indexes them: a JSON array, else one per line. */
function newApiKeys(key: string): string[] {
  if (key.startsWith("[")) {
    const list = parseJson<unknown[]>(key);
    return Array.isArray(list) ? list.map((k) => (typeof k === "string" ? k : JSON.stringify(k))) : [];
  }
  return key.replace(/\n$/, "").split("\n");
}

function multiKeyOf(
  key: string,
  info: ChannelInfo | null,
): { mode: string; disabled: Omit<Prisma.ChannelKeyCreateManyInput, "channel_id">[] } {
  if (!info?.is_multi_key) return { mode: "", disabled: [] };
  // new-api wrote the mode as a string ("random", "polling"); early multi-key builds as 0/1.
  const mode = info.multi_key_mode === "polling" || info.multi_key_mode === 1 ? "polling" : "random";
  const keys = newApiKeys(key);
  const disabled = Object.entries(info.multi_key_status_list ?? {})
    .filter(([index, status]) => status !== CHANNEL_KEY_STATUS.enabled && keys[Number(index)]?.trim())
    .map(([index, status]) => ({
      key_hash: channelKeyHash(keys[Number(index)]!.trim()),
      status,
      disabled_reason: str(info.multi_key_disabled_reason?.[index]),
      disabled_time: time(info.multi_key_disabled_time?.[index]),
    }));
  return { mode, disabled };
}

/**
 * The latest new-api's Vertex AI and AWS channels may hold an API key instead of credentials
 * (`settings`: vertex_key_type / aws_key_type "api_key"). Qiao's take a service account JSON and
 * AccessKey|SecretAccessKey|Region: such a channel comes in disabled, named in the report.
 */
function unsupportedKeyKind(type: number, settings: string): [vendor: string, needs: string] | undefined {
  const s = parseJson<{ vertex_key_type?: unknown; aws_key_type?: unknown }>(settings);
  if (type === CHANNEL_TYPES.VertexAI && s?.vertex_key_type === "api_key") return ["Vertex AI", "服务账号 JSON 凭证"];
  if (type === CHANNEL_TYPES.AWS && s?.aws_key_type === "api_key") return ["AWS", " AccessKey|SecretAccessKey|Region"];
  return undefined;
}

const channelsSpec: TableSpec<ChannelData> = {
  table: "channels",
  reads: [
    "id",
    "type",
    "key",
    // gorm's name for new-api's field OpenAIOrganization.
    "open_ai_organization",
    "test_model",
    "status",
    "name",
    "weight",
    "created_time",
    "test_time",
    "response_time",
    "base_url",
    "other",
    "balance",
    "balance_updated_time",
    "models",
    "group",
    "used_quota",
    "model_mapping",
    "status_code_mapping",
    "priority",
    "auto_ban",
    "other_info",
    "tag",
    "channel_info",
    "config",
  ],
  async decide(rows, ctx) {
    return rows.map((r): Decision<ChannelData> => {
      const fields =
        ctx.flavor === "one-api"
          ? fromOneApiChannel({ type: int(r.type), key: str(r.key), base_url: str(r.base_url), other: str(r.other), config: str(r.config) })
          : { type: int(r.type), key: str(r.key), base_url: str(r.base_url), other: str(r.other) };
      const { type, key } = fields;
      const { mode, disabled } = multiKeyOf(key, parseJson<ChannelInfo>(str(r.channel_info)));
      const keyKind = unsupportedKeyKind(type, str(r.settings));
      const supported = !("unsupported" in fields) && isChannelType(type) && !keyKind;
      return {
        note:
          "note" in fields && fields.note
            ? fields.note
            : keyKind
              ? IMPORT_MSG.keyKind(...keyKind)
              : supported
                ? undefined
                : IMPORT_MSG.channelType(type),
        data: {
          row: {
            type,
            key: seal(mode ? key.trim() : key),
            openai_organization: str(r.open_ai_organization),
            test_model: str(r.test_model),
            status: supported ? int(r.status) || CHANNEL_STATUS.enabled : CHANNEL_STATUS.manuallyDisabled,
            name: str(r.name),
            weight: int(r.weight),
            created_time: time(r.created_time),
            test_time: time(r.test_time),
            response_time: time(r.response_time),
            base_url: fields.base_url,
            other: fields.other,
            balance: Number(r.balance ?? 0) || 0,
            balance_updated_time: time(r.balance_updated_time),
            models: str(r.models),
            group: str(r.group) || "default",
            used_quota: big(r.used_quota),
            model_mapping: str(r.model_mapping),
            status_code_mapping: str(r.status_code_mapping),
            priority: time(r.priority),
            auto_ban: r.auto_ban == null ? 1 : int(r.auto_ban),
            other_info: str(r.other_info),
            tag: str(r.tag),
            multi_key_mode: mode,
            // The operator who runs the import holds the server: the addresses are theirs, as root's.
            address_by_root: true,
          },
          disabledKeys: disabled as Prisma.ChannelKeyCreateManyInput[],
        },
      };
    });
  },
  async write(tx, { row, disabledKeys }) {
    const { id } = await tx.channel.create({ data: row, select: { id: true } });
    const abilities = abilityRowsFor({
      id,
      models: row.models ?? "",
      group: row.group ?? "default",
      priority: row.priority ?? 0,
      weight: row.weight ?? 0,
      status: row.status ?? 1,
    });
    if (abilities.length) await tx.ability.createMany({ data: abilities });
    if (disabledKeys.length) await tx.channelKey.createMany({ data: disabledKeys.map((k) => ({ ...k, channel_id: id })) });
    return id;
  },
};

// ---------------------------------------------------------------------------------------------
// redemptions

/**
 * An unused code the source let expire (the latest new-api's `expired_time`; 0 or -1: never). Qiao's
 * codes do not expire, so it comes in disabled: it must not become redeemable by moving.
 */
const expiredUnused = (r: Row) => {
  const expires = int(r.expired_time);
  return int(r.status) === 1 && expires > 0 && expires < Math.floor(Date.now() / 1000);
};

const redemptionsSpec: TableSpec<Prisma.RedemptionUncheckedCreateInput> = {
  table: "redemptions",
  reads: ["id", "user_id", "key", "status", "name", "quota", "created_time", "redeemed_time", "used_user_id", "deleted_at", "expired_time"],
  // Unused value: what can still be redeemed (an expired code cannot, there or here).
  sums: (row) => ({ redemptions_unused_quota: int(row.status) === 1 && !expiredUnused(row) ? big(row.quota) : 0n }),
  async decide(rows, ctx) {
    const hashes = rows.map((r) => hashRedemptionKey(str(r.key).trim()));
    const taken = new Set(
      (await ctx.db.redemption.findMany({ where: { key_hash: { in: hashes } }, select: { key_hash: true } })).map((t) => t.key_hash),
    );
    return rows.map((r, i): Decision<Prisma.RedemptionUncheckedCreateInput> => {
      const key = str(r.key).trim();
      if (!key) return { skip: IMPORT_MSG.codeEmpty };
      const hash = hashes[i]!;
      if (taken.has(hash) || ctx.claimed.has(`code:${hash}`)) return { skip: IMPORT_MSG.codeTaken, conflict: true };
      ctx.claimed.add(`code:${hash}`);
      const expired = expiredUnused(r);
      return {
        ...(expired ? { note: IMPORT_MSG.codeExpired } : {}),
        data: {
          user_id: refOrZero(ctx.ids.users, r.user_id),
          ...storedRedemptionKey(key),
          status: expired ? 2 : int(r.status) || 1,
          name: str(r.name),
          quota: big(r.quota),
          created_time: time(r.created_time),
          redeemed_time: time(r.redeemed_time),
          used_user_id: refOrZero(ctx.ids.users, r.used_user_id),
          deleted_at: deletedAt(r.deleted_at),
        },
      };
    });
  },
  write: async (tx, data) => (await tx.redemption.create({ data, select: { id: true } })).id,
};

// ---------------------------------------------------------------------------------------------
// top_ups

const ORDER_STATUSES = new Set<string>(Object.values(ORDER_STATUS));

const topUpsSpec: TableSpec<Prisma.TopUpUncheckedCreateInput> = {
  table: "top_ups",
  reads: ["id", "user_id", "amount", "money", "trade_no", "create_time", "complete_time", "status", "payment_method"],
  async decide(rows, ctx) {
    const numbers = rows.map((r) => str(r.trade_no));
    const taken = new Set(
      (await ctx.db.topUp.findMany({ where: { trade_no: { in: numbers } }, select: { trade_no: true } })).map((t) => t.trade_no),
    );
    return rows.map((r, i): Decision<Prisma.TopUpUncheckedCreateInput> => {
      const owner = mapped(ctx.ids.users, r.user_id);
      if (!owner) return { skip: IMPORT_MSG.ownerMissing(int(r.user_id)) };
      const tradeNo = numbers[i]!;
      if (taken.has(tradeNo) || ctx.claimed.has(`trade:${tradeNo}`)) return { skip: IMPORT_MSG.tradeNoTaken(tradeNo), conflict: true };
      const status = str(r.status);
      if (!ORDER_STATUSES.has(status)) return { skip: IMPORT_MSG.orderStatus(status) };
      ctx.claimed.add(`trade:${tradeNo}`);
      const method = str(r.payment_method);
      const amount = int(r.amount);
      return {
        data: {
          user_id: owner,
          amount: fits(amount) ? amount : 0,
          // new-api credits amount × QuotaPerUnit when an order is paid (controller/topup.go).
          quota: BigInt(amount) * ctx.quotaPerUnit,
          money_cents: Math.round(Number(r.money ?? 0) * 100),
          currency: method === "stripe" ? "usd" : "CNY",
          trade_no: tradeNo,
          payment_method: method,
          create_time: time(r.create_time),
          complete_time: time(r.complete_time),
          status,
        },
      };
    });
  },
  write: async (tx, data) => (await tx.topUp.create({ data, select: { id: true } })).id,
};

// ---------------------------------------------------------------------------------------------
// midjourneys and tasks

const MJ_COLUMNS = [
  "code",
  "action",
  "mj_id",
  "prompt",
  "prompt_en",
  "description",
  "state",
  "image_url",
  "status",
  "progress",
  "fail_reason",
  "buttons",
  "properties",
] as const;

const midjourneysSpec: TableSpec<Prisma.MidjourneyUncheckedCreateInput> = {
  table: "midjourneys",
  reads: ["id", "user_id", "channel_id", "quota", "submit_time", "start_time", "finish_time", ...MJ_COLUMNS],
  async decide(rows, ctx) {
    return rows.map((r): Decision<Prisma.MidjourneyUncheckedCreateInput> => {
      const owner = mapped(ctx.ids.users, r.user_id);
      if (!owner) return { skip: IMPORT_MSG.ownerMissing(int(r.user_id)) };
      const text = Object.fromEntries(MJ_COLUMNS.map((c) => [c, str(r[c])]));
      return {
        data: {
          ...text,
          code: int(r.code),
          user_id: owner,
          channel_id: refOrZero(ctx.ids.channels, r.channel_id),
          quota: big(r.quota),
          submit_time: big(r.submit_time),
          start_time: big(r.start_time),
          finish_time: big(r.finish_time),
        },
      };
    });
  },
  write: async (tx, data) => (await tx.midjourney.create({ data, select: { id: true } })).id,
};

const TASK_TEXT = ["task_id", "platform", "action", "status", "fail_reason", "progress", "properties", "data"] as const;

/**
 * What the latest new-api keeps in a task's private_data (JSON) that Qiao carries over: the key
 * that submitted it (a refund returns the key's share there) and the vendor's own id when the row's
 * task_id is new-api's public one. The rest (a copy of the channel's key, the billing snapshot) is not.
 */
function taskPrivateData(v: unknown): { tokenId: number; upstreamId: string } {
  // A JSON column: text from SQLite, already parsed from MySQL and PostgreSQL.
  const data = v && typeof v === "object" ? v : parseJson<unknown>(str(v));
  const o = data && typeof data === "object" ? (data as Record<string, unknown>) : {};
  return { tokenId: int(o.token_id), upstreamId: str(o.upstream_task_id) };
}

const tasksSpec: TableSpec<Prisma.TaskUncheckedCreateInput> = {
  table: "tasks",
  reads: [
    "id",
    "created_at",
    "updated_at",
    "user_id",
    "channel_id",
    "quota",
    "submit_time",
    "start_time",
    "finish_time",
    "private_data",
    ...TASK_TEXT,
  ],
  async decide(rows, ctx) {
    const extra = rows.map((r) => taskPrivateData(r.private_data));
    // A key with a quota of its own paid its share of the task (new-api takes it from the key too).
    const keyIds = [...new Set(extra.map((e) => e.tokenId).filter((id) => id > 0))];
    const limitedKeys = new Set(
      keyIds.length
        ? (await ctx.source.query(`SELECT id, unlimited_quota FROM tokens WHERE id IN (${keyIds.map(() => "?").join(", ")})`, keyIds))
            .filter((t) => !bool(t.unlimited_quota))
            .map((t) => int(t.id))
        : [],
    );
    return rows.map((r, i): Decision<Prisma.TaskUncheckedCreateInput> => {
      const owner = mapped(ctx.ids.users, r.user_id);
      if (!owner) return { skip: IMPORT_MSG.ownerMissing(int(r.user_id)) };
      const text = Object.fromEntries(TASK_TEXT.map((c) => [c, typeof r[c] === "object" && r[c] ? JSON.stringify(r[c]) : str(r[c])]));
      const { tokenId, upstreamId } = extra[i]!;
      const key = refOrZero(ctx.ids.tokens, tokenId);
      // Qiao asks the vendor by task_id: the vendor's id goes there, and the report says so.
      const renamed = upstreamId !== "" && upstreamId !== text.task_id;
      return {
        ...(renamed ? { note: IMPORT_MSG.taskUpstreamId(text.task_id!, upstreamId) } : {}),
        data: {
          ...text,
          ...(renamed ? { task_id: upstreamId } : {}),
          created_at: time(r.created_at),
          updated_at: time(r.updated_at),
          user_id: owner,
          channel_id: refOrZero(ctx.ids.channels, r.channel_id),
          quota: big(r.quota),
          submit_time: big(r.submit_time),
          start_time: big(r.start_time),
          finish_time: big(r.finish_time),
          token_id: key,
          token_quota: key && limitedKeys.has(tokenId) ? big(r.quota) : 0n,
        },
      };
    });
  },
  write: async (tx, data) => (await tx.task.create({ data, select: { id: true } })).id,
};

// ---------------------------------------------------------------------------------------------
// quota_data

const quotaDataSpec: TableSpec<Prisma.QuotaDataUncheckedCreateInput> = {
  table: "quota_data",
  reads: ["id", "user_id", "username", "model_name", "created_at", "token_used", "count", "quota"],
  async decide(rows, ctx) {
    const owners = rows.map((r) => mapped(ctx.ids.users, r.user_id) ?? 0);
    const existing = await ctx.db.quotaData.findMany({
      where: { user_id: { in: owners.filter((o) => o > 0) }, created_at: { in: rows.map((r) => time(r.created_at)) } },
      select: { user_id: true, model_name: true, created_at: true },
    });
    const taken = new Set(existing.map((q) => `${q.user_id}|${q.model_name}|${q.created_at}`));
    return rows.map((r, i): Decision<Prisma.QuotaDataUncheckedCreateInput> => {
      const owner = owners[i]!;
      if (!owner) return { skip: IMPORT_MSG.ownerMissing(int(r.user_id)) };
      const bucket = `${owner}|${str(r.model_name)}|${time(r.created_at)}`;
      if (taken.has(bucket) || ctx.claimed.has(`bucket:${bucket}`)) return { skip: IMPORT_MSG.bucketTaken, conflict: true };
      ctx.claimed.add(`bucket:${bucket}`);
      return {
        data: {
          user_id: owner,
          username: str(r.username),
          model_name: str(r.model_name),
          created_at: time(r.created_at),
          token_used: big(r.token_used),
          count: time(r.count),
          quota: big(r.quota),
        },
      };
    });
  },
  write: async (tx, data) => (await tx.quotaData.create({ data, select: { id: true } })).id,
};

/** In dependency order: owners before what they own. */
export const TABLE_SPECS = [
  usersSpec,
  tokensSpec,
  channelsSpec,
  redemptionsSpec,
  topUpsSpec,
  midjourneysSpec,
  tasksSpec,
  quotaDataSpec,
] as readonly TableSpec<unknown>[];
