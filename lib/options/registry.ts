// Every system option the product knows: its kind, default, limits, secrecy and JSON shape.
// Options are stored as strings in the `options` table (key → value); this module turns a
// stored or submitted string into a typed value, or into the Chinese message the settings page
// shows. It is pure: the cache and the database live in lib/options/index.ts.
//
// Secrets: a key ending in Token, Secret or Key holds a credential and is never returned by any
// API (new-api's rule). The one exception is TurnstileSiteKey: a Turnstile site key is public by
// design (the login page embeds it, and the status object carries it), so it is listed and
// returned like any other value. A unit test keeps the `secret` flags and this naming rule in step.
//
// Client-safe: the settings tabs import it to check a value with the parser the server uses, so
// it imports nothing that needs the server (no database, no lib/env, no node:*).
import { z } from "zod";
import { INVALID_JSON_MESSAGE, PAYMENT_NEEDS_SERVER_ADDRESS } from "@/lib/options/messages";
import { DEFAULT_CACHE_RATIO } from "@/lib/options/defaults/cache-ratio";
import { DEFAULT_CHATS } from "@/lib/options/defaults/chats";
import { DEFAULT_COMPLETION_RATIO } from "@/lib/options/defaults/completion-ratio";
import { DEFAULT_MODEL_PRICE } from "@/lib/options/defaults/model-price";
import { DEFAULT_MODEL_RATIO } from "@/lib/options/defaults/model-ratio";

export type OptionKind = "bool" | "int" | "float" | "string" | "json";

export { INVALID_JSON_MESSAGE };

export type ParseResult<T> = { ok: true; value: T; raw: string } | { ok: false; message: string };

export type OptionEntry<T> = {
  kind: OptionKind;
  default: T;
  /** Never returned by the API (see the header comment). */
  secret: boolean;
  min?: number;
  max?: number;
  choices?: readonly string[];
  /** Checks a candidate string; on success gives the typed value and the canonical string to store. */
  parse(key: string, raw: string): ParseResult<T>;
  /** The stored string of a typed value. */
  format(value: T): string;
};

const fail = (message: string) => ({ ok: false as const, message });

function checkRange(key: string, n: number, min?: number, max?: number): string | null {
  if (min !== undefined && n < min) return `${key} 的值不能小于 ${min}`;
  if (max !== undefined && n > max) return `${key} 的值不能大于 ${max}`;
  return null;
}

function bool(fallback: boolean): OptionEntry<boolean> {
  return {
    kind: "bool",
    default: fallback,
    secret: false,
    parse(key, raw) {
      const v = raw.trim();
      if (v !== "true" && v !== "false") return fail(`${key} 的值只能是 true 或 false`);
      return { ok: true, value: v === "true", raw: v };
    },
    format: String,
  };
}

function int(fallback: number, limits: { min?: number; max?: number } = {}): OptionEntry<number> {
  return {
    kind: "int",
    default: fallback,
    secret: false,
    ...limits,
    parse(key, raw) {
      const v = raw.trim();
      const n = Number(v);
      if (!/^[+-]?\d+$/.test(v) || !Number.isSafeInteger(n)) return fail(`${key} 的值必须是整数`);
      const range = checkRange(key, n, limits.min, limits.max);
      return range ? fail(range) : { ok: true, value: n, raw: String(n) };
    },
    format: String,
  };
}

function float(fallback: number, limits: { min?: number; max?: number; positive?: boolean } = {}): OptionEntry<number> {
  return {
    kind: "float",
    default: fallback,
    secret: false,
    min: limits.min,
    max: limits.max,
    parse(key, raw) {
      const v = raw.trim();
      const n = Number(v);
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v) || !Number.isFinite(n)) return fail(`${key} 的值必须是数字`);
      if (limits.positive && n <= 0) return fail(`${key} 的值必须大于 0`);
      const range = checkRange(key, n, limits.min, limits.max);
      return range ? fail(range) : { ok: true, value: n, raw: String(n) };
    },
    format: String,
  };
}

type TextOptions = {
  secret?: boolean;
  choices?: readonly string[];
  /** Keep the value byte for byte (Markdown and HTML content); otherwise it is trimmed. */
  verbatim?: boolean;
  /** An http(s) address; trailing slashes are removed (a trailing slash breaks payment callbacks). */
  url?: boolean;
  /** Rewrites the value to its canonical form after trimming. */
  normalize?: (v: string) => string;
};

function text(fallback: string, opts: TextOptions = {}): OptionEntry<string> {
  return {
    kind: "string",
    default: fallback,
    secret: opts.secret ?? false,
    choices: opts.choices,
    parse(key, raw) {
      let v = opts.verbatim ? raw : raw.trim();
      if (opts.url && v) {
        v = v.replace(/\/+$/, "");
        if (!/^https?:\/\/[^\s/]+/i.test(v)) return fail(`${key} 必须是以 http:// 或 https:// 开头的地址`);
      }
      if (opts.normalize) v = opts.normalize(v);
      if (opts.choices && !opts.choices.includes(v)) return fail(`${key} 的值必须是 ${opts.choices.join("、")} 之一`);
      return { ok: true, value: v, raw: v };
    },
    format: String,
  };
}

const secretText = () => text("", { secret: true });

function json<T>(schema: z.ZodType<T>, fallback: T): OptionEntry<T> {
  return {
    kind: "json",
    default: fallback,
    secret: false,
    parse(key, raw) {
      const v = raw.trim();
      let data: unknown;
      try {
        data = JSON.parse(v);
      } catch {
        return fail(INVALID_JSON_MESSAGE);
      }
      const parsed = schema.safeParse(data);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? `${issue.path.join(".")}：` : "";
        return fail(`${key} 格式错误：${where}${issue?.message ?? "格式不正确"}`);
      }
      return { ok: true, value: parsed.data, raw: v };
    },
    format: (value) => JSON.stringify(value),
  };
}

/** A JSON object whose names are non-blank; `shape` is the example shown when it is not an object. */
const namedTable = <V extends z.ZodType>(value: V, shape: string, blankName = "名称不能为空") =>
  z
    .record(z.string(), value, { error: (issue) => (issue.code === "invalid_type" ? `应为 JSON 对象，例如 ${shape}` : undefined) })
    .refine((table) => Object.keys(table).every((name) => name.trim() !== ""), blankName);

/** `{"name": number ≥ 0}`: model ratios, prices and group ratios. */
const numberTable = (what: string) => namedTable(z.number({ error: `${what}必须是数字` }).min(0, `${what}不能为负数`), '{"名称": 1}');

const userUsableGroups = namedTable(z.string({ error: "分组说明必须是字符串" }), '{"default": "默认分组"}', "分组名不能为空");

const RATE_LIMIT_MAX = 2_147_483_647;
const rateLimitCount = (what: string, min: number) =>
  z
    .number({ error: `${what}必须是整数` })
    .int(`${what}必须是整数`)
    .min(min, `${what}不能小于 ${min}`)
    .max(RATE_LIMIT_MAX, `${what}不能大于 ${RATE_LIMIT_MAX}`);
/** `{"group": [requests, successes]}`: new-api's per-group override of the two request limits. */
const rateLimitGroups = namedTable(
  z.tuple([rateLimitCount("请求次数", 0), rateLimitCount("成功次数", 1)], { error: "每个分组的值应为 [请求次数, 成功次数]" }),
  '{"default": [200, 100]}',
  "分组名不能为空",
);

const CHAT_ITEM = '每一项必须是 {"名称": "链接"} 形式';
const chats = z.array(
  z
    .record(z.string(), z.string({ error: "链接必须是字符串" }), {
      error: (issue) => (issue.code === "invalid_type" ? CHAT_ITEM : undefined),
    })
    .refine((item) => Object.keys(item).length === 1 && Object.keys(item)[0]!.trim() !== "", CHAT_ITEM),
  { error: (issue) => (issue.code === "invalid_type" ? '应为 JSON 数组，例如 [{"名称": "链接"}]' : undefined) },
);

const splitList = (v: string, separator: RegExp, join: string) =>
  v
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean)
    .join(join);

const DEFAULT_EMAIL_DOMAINS = [
  "gmail.com",
  "163.com",
  "126.com",
  "qq.com",
  "outlook.com",
  "hotmail.com",
  "icloud.com",
  "yahoo.com",
  "foxmail.com",
];

export const OPTION_REGISTRY = {
  // Quota (quota units; 500 000 = US$1)
  QuotaForNewUser: int(0, { min: 0 }),
  QuotaForInviter: int(0, { min: 0 }),
  QuotaForInvitee: int(0, { min: 0 }),
  PreConsumedQuota: int(500, { min: 0 }),
  QuotaRemindThreshold: int(1000, { min: 0 }),
  QuotaPerUnit: float(500_000, { positive: true }),

  // Channels
  RetryTimes: int(0, { min: 0 }),
  /** Seconds; a channel test slower than this disables the channel. 0 = never. */
  ChannelDisableThreshold: float(5, { min: 0 }),
  AutomaticDisableChannelEnabled: bool(false),
  AutomaticEnableChannelEnabled: bool(false),
  /** Minutes between automatic tests of every channel (lib/relay/probe/schedule.ts); 0 = never. */
  ChannelTestInterval: int(0, { min: 0, max: 10_080 }),
  /**
   * Whether channels whose address an admin below root set may reach loopback, private,
   * link-local, CGNAT and unspecified addresses (Ollama and local vendors live on loopback).
   * Checked after DNS resolution, when a connection is opened; root's own addresses are not.
   */
  ChannelPrivateAddressAllowed: bool(true),

  // Logging and display
  LogConsumeEnabled: bool(true),
  DisplayInCurrencyEnabled: bool(true),
  DisplayTokenStatEnabled: bool(true),
  DefaultCollapseSidebar: bool(false),

  // Sensitive words (one word a line)
  CheckSensitiveEnabled: bool(true),
  CheckSensitiveOnPromptEnabled: bool(true),
  CheckSensitiveOnCompletionEnabled: bool(false),
  StopOnSensitiveEnabled: bool(true),
  StreamCacheQueueLength: int(0, { min: 0 }),
  SensitiveWords: text("test_sensitive", { normalize: (v) => splitList(v, /\r?\n/, "\n") }),

  // Drawing (Midjourney) and asynchronous tasks (Suno). new-api's flags, default off here: their
  // pages come with the task issue, and until then the menu never offers them (lib/ui/menu.ts).
  DrawingEnabled: bool(false),
  TaskEnabled: bool(false),
  MjNotifyEnabled: bool(false),
  MjAccountFilterEnabled: bool(false),
  MjModeClearEnabled: bool(false),
  MjForwardUrlEnabled: bool(true),
  MjActionCheckSuccessEnabled: bool(true),

  // Data dashboard
  DataExportEnabled: bool(true),
  /** Minutes between flushes of the usage buckets. */
  DataExportInterval: int(5, { min: 1 }),
  DataExportDefaultTime: text("hour", { choices: ["hour", "day", "week"] }),

  // Ratios and prices
  ModelRatio: json(numberTable("倍率"), DEFAULT_MODEL_RATIO),
  CompletionRatio: json(numberTable("补全倍率"), DEFAULT_COMPLETION_RATIO),
  ModelPrice: json(numberTable("价格"), DEFAULT_MODEL_PRICE),
  CacheRatio: json(numberTable("缓存倍率"), DEFAULT_CACHE_RATIO),
  GroupRatio: json(numberTable("分组倍率"), { default: 1, vip: 1, svip: 1 }),
  UserUsableGroups: json(userUsableGroups, { default: "默认分组", vip: "vip分组" }),
  TopupGroupRatio: json(numberTable("充值分组倍率"), { default: 1, vip: 1, svip: 1 }),

  // Links and content
  Chats: json(chats, DEFAULT_CHATS),
  TopUpLink: text(""),
  ChatLink: text(""),
  ChatLink2: text(""),
  Notice: text("", { verbatim: true }),
  About: text("", { verbatim: true }),
  HomePageContent: text("", { verbatim: true }),
  Footer: text("", { verbatim: true }),
  Logo: text("/logo.png"),
  SystemName: text("Qiao"),

  // File and image permissions (minimum role)
  FileUploadPermission: int(0, { min: 0, max: 100 }),
  FileDownloadPermission: int(0, { min: 0, max: 100 }),
  ImageUploadPermission: int(0, { min: 0, max: 100 }),
  ImageDownloadPermission: int(0, { min: 0, max: 100 }),

  // Login and registration
  RegisterEnabled: bool(true),
  PasswordLoginEnabled: bool(true),
  PasswordRegisterEnabled: bool(true),
  EmailVerificationEnabled: bool(false),
  GitHubOAuthEnabled: bool(false),
  LinuxDOOAuthEnabled: bool(false),
  TelegramOAuthEnabled: bool(false),
  WeChatAuthEnabled: bool(false),
  TurnstileCheckEnabled: bool(false),

  // E-mail domains
  EmailDomainRestrictionEnabled: bool(false),
  /** Rejects "+" and "." in the local part of an address. */
  EmailAliasRestrictionEnabled: bool(false),
  /** Comma-separated domains. */
  EmailDomainWhitelist: text(DEFAULT_EMAIL_DOMAINS.join(","), { normalize: (v) => splitList(v.toLowerCase(), /[,\s]+/, ",") }),

  // SMTP
  SMTPServer: text(""),
  SMTPPort: int(587, { min: 1, max: 65535 }),
  SMTPAccount: text(""),
  SMTPFrom: text(""),
  SMTPToken: secretText(),
  SMTPSSLEnabled: bool(false),

  // Server and worker proxy
  /** Until an admin sets one: this server on its own port (setLocalServerAddress, called by lib/options/index.ts). */
  ServerAddress: text("http://localhost:3000", { url: true }),
  WorkerUrl: text("", { url: true }),
  WorkerValidKey: secretText(),

  // Online top-up (EPay)
  PayAddress: text("", { url: true }),
  CustomCallbackAddress: text("", { url: true }),
  EpayId: text(""),
  EpayKey: secretText(),
  /** Top-up currency per US$1. */
  Price: float(7.3, { min: 0 }),
  MinTopUp: int(1, { min: 1 }),

  // Third-party login
  GitHubClientId: text(""),
  GitHubClientSecret: secretText(),
  LinuxDOClientId: text(""),
  LinuxDOClientSecret: secretText(),
  TelegramBotToken: secretText(),
  TelegramBotName: text(""),
  WeChatServerAddress: text("", { url: true }),
  WeChatServerToken: secretText(),
  WeChatAccountQRCodeImageURL: text(""),
  TurnstileSiteKey: text(""),
  TurnstileSecretKey: secretText(),

  // Later new-api additions
  /** Unpriced models are served (at new-api's fallback ratio) instead of being refused. */
  SelfUseModeEnabled: bool(false),
  DemoSiteEnabled: bool(false),
  ModelRequestRateLimitEnabled: bool(false),
  ModelRequestRateLimitDurationMinutes: int(1, { min: 1 }),
  /** Requests per user and window, failures included; 0 = no limit. */
  ModelRequestRateLimitCount: int(0, { min: 0 }),
  /** Successful requests per user and window; 0 = no limit. */
  ModelRequestRateLimitSuccessCount: int(1000, { min: 0 }),
  /** Per group (the key's, else the user's): [requests, successes] in place of the two above. */
  ModelRequestRateLimitGroup: json(rateLimitGroups, {}),
} satisfies Record<string, OptionEntry<unknown>>;

export type OptionRegistry = typeof OPTION_REGISTRY;
export type OptionKey = keyof OptionRegistry;
export type OptionValue<K extends OptionKey> = OptionRegistry[K] extends OptionEntry<infer T> ? T : never;
export type OptionValues = { readonly [K in OptionKey]: OptionValue<K> };

export const OPTION_KEYS = Object.keys(OPTION_REGISTRY) as OptionKey[];

export const isOptionKey = (key: string): key is OptionKey => Object.hasOwn(OPTION_REGISTRY, key);

const entryOf = <K extends OptionKey>(key: K) => OPTION_REGISTRY[key] as unknown as OptionEntry<OptionValue<K>>;

/**
 * Makes this process's own address (http://localhost:PORT) the default ServerAddress. The port
 * is known only on the server (lib/env), which this module must not import, so the server's
 * options module sets it once when it loads, before any option is read.
 */
export function setLocalServerAddress(address: string): void {
  (OPTION_REGISTRY.ServerAddress as OptionEntry<string>).default = address;
}

export const isSecretOption = (key: OptionKey): boolean => OPTION_REGISTRY[key].secret;

/** The stored string of an option's default. */
export const defaultRaw = (key: OptionKey): string => entryOf(key).format(OPTION_REGISTRY[key].default as never);

/** Validates a submitted value. Unknown keys are refused. */
export function parseOption(key: string, raw: string): ParseResult<unknown> {
  if (!isOptionKey(key)) return fail(`未知的配置项：${key}`);
  return entryOf(key).parse(key, raw);
}

const warnedStoredValues = new Set<string>();

/**
 * Reads a stored value. A value the current rules refuse (written by an older version, or by
 * hand) falls back to the default instead of breaking every page that reads options.
 */
export function readStoredOption<K extends OptionKey>(key: K, raw: string): { value: OptionValue<K>; raw: string } {
  const parsed = entryOf(key).parse(key, raw);
  if (parsed.ok) return { value: parsed.value, raw: parsed.raw };
  // Said once per bad value, not on every periodic reload.
  if (!warnedStoredValues.has(`${key}\0${raw}`)) {
    warnedStoredValues.add(`${key}\0${raw}`);
    console.warn(`[options] stored value of ${key} is invalid (${parsed.message}); using the default`);
  }
  return { value: OPTION_REGISTRY[key].default as OptionValue<K>, raw: defaultRaw(key) };
}

export function defaultOptionValues(): { values: OptionValues; raw: Record<OptionKey, string> } {
  const values = {} as Record<OptionKey, unknown>;
  const raw = {} as Record<OptionKey, string>;
  for (const key of OPTION_KEYS) {
    values[key] = OPTION_REGISTRY[key].default;
    raw[key] = defaultRaw(key);
  }
  return { values: values as OptionValues, raw };
}

type Requirement = { needs: OptionKey[]; message: string };

/** Toggles that cannot be switched on while the settings they depend on are empty. */
const ENABLE_REQUIRES: Partial<Record<OptionKey, Requirement>> = {
  GitHubOAuthEnabled: {
    needs: ["GitHubClientId", "GitHubClientSecret"],
    message: "无法启用 GitHub OAuth，请先填入 GitHub Client Id 以及 GitHub Client Secret！",
  },
  LinuxDOOAuthEnabled: {
    needs: ["LinuxDOClientId", "LinuxDOClientSecret"],
    message: "无法启用 LinuxDO OAuth，请先填入 LinuxDO Client Id 以及 LinuxDO Client Secret！",
  },
  WeChatAuthEnabled: {
    needs: ["WeChatServerAddress", "WeChatServerToken"],
    message: "无法启用微信登录，请先填入微信登录相关配置信息（服务器地址与访问凭证）！",
  },
  TelegramOAuthEnabled: {
    needs: ["TelegramBotToken", "TelegramBotName"],
    message: "无法启用 Telegram OAuth，请先填入 Telegram Bot Token 以及 Telegram Bot 名称！",
  },
  TurnstileCheckEnabled: {
    needs: ["TurnstileSiteKey", "TurnstileSecretKey"],
    message: "无法启用 Turnstile 校验，请先填入 Turnstile Site Key 以及 Secret Key！",
  },
  EmailVerificationEnabled: {
    needs: ["SMTPServer"],
    message: "无法启用邮箱验证，请先填入 SMTP 服务器等邮件配置信息！",
  },
  EmailDomainRestrictionEnabled: {
    needs: ["EmailDomainWhitelist"],
    message: "无法启用邮箱域名限制，请先填入限制的邮箱域名！",
  },
};

/** Payment settings are useless without the address EPay calls back (spec §5 Options). */
const NEEDS_SERVER_ADDRESS: ReadonlySet<OptionKey> = new Set(["PayAddress", "EpayId", "EpayKey"]);

/** Rules that involve other options' current values; null when the change is allowed. */
export function crossKeyError(key: OptionKey, value: unknown, current: OptionValues): string | null {
  const requirement = Object.hasOwn(ENABLE_REQUIRES, key) ? ENABLE_REQUIRES[key] : undefined;
  if (requirement && value === true && requirement.needs.some((k) => String(current[k]).trim() === "")) {
    return requirement.message;
  }
  if (NEEDS_SERVER_ADDRESS.has(key) && value !== "" && current.ServerAddress === "") {
    return PAYMENT_NEEDS_SERVER_ADDRESS;
  }
  return null;
}
