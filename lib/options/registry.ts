// Every system option the product knows: its kind, default, limits, secrecy and JSON shape, and
// where and how the settings tabs show it (`ui`: section, label, description, input). Options are
// stored as strings in the `options` table (key → value); this module turns a stored or submitted
// string into a typed value, or into the Chinese message the settings page shows. It is pure: the
// cache and the database live in lib/options/index.ts. Entries are listed in the order the tabs
// show them, which is also the order a section saves them in (a toggle after what it needs).
//
// Secrets: a key ending in Token, Secret or Key (or `secret`, as new-api's dotted keys such as
// `oidc.client_secret` end) holds a credential and is never returned by any API (new-api's rule).
// The one exception is TurnstileSiteKey: a Turnstile site key is public by design (the login page
// embeds it, and the status object carries it), so it is listed and returned like any other value. A unit test keeps the `secret` flags and this naming rule in step.
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
import { type LimitSet, ROUTING_STRATEGIES, type RoutingStrategy } from "@/lib/limits/types";

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
  /** Where and how the settings tabs show it; absent for options the console does not offer. */
  ui?: OptionUi;
};

/**
 * The settings tabs' sections, in the order each tab shows them, with the tab each belongs to.
 * An option with `ui` is edited in its section; the tabs build their fields from these entries
 * (sectionFields), so a label, a limit and a check live in one place.
 */
export const OPTION_SECTIONS = {
  general: "operation",
  drawing: "operation",
  sensitive: "operation",
  logs: "operation",
  dashboard: "operation",
  monitoring: "operation",
  routing: "operation",
  quota: "operation",
  rateLimit: "operation",
  chats: "operation",
  ratio: "operation",
  server: "system",
  metrics: "system",
  worker: "system",
  payment: "system",
  stripe: "system",
  login: "system",
  emailDomains: "system",
  smtp: "system",
  github: "system",
  linuxdo: "system",
  wechat: "system",
  telegram: "system",
  oidc: "system",
  turnstile: "system",
  other: "other",
} as const;
export type OptionSection = keyof typeof OPTION_SECTIONS;
export type OptionTab = (typeof OPTION_SECTIONS)[OptionSection];

/** How a field edits its value: `lines` one item a line, `markdown` Markdown/HTML with a preview. */
export type OptionInput = "text" | "secret" | "switch" | "number" | "select" | "json" | "tags" | "lines" | "markdown";

/** How the settings tabs show an option. */
export type OptionUi = {
  section: OptionSection;
  label: string;
  description?: string;
  placeholder?: string;
  /** By default it follows the kind: bool → switch, numbers → number, json → json, secret → secret, choices → select. */
  input?: OptionInput;
  /** Written after a number (" 分钟"). */
  suffix?: string;
  /** What each choice of a select reads as. */
  choiceLabels?: Readonly<Record<string, string>>;
  /** Takes a whole row of its section's grid (long lists). */
  wide?: boolean;
  /** The form's text for a value the parser refuses, in place of the parser's (JSON that does not parse keeps the spec's text). */
  invalid?: string;
  /** A switch that is on and locked while the form's other values say so; gives the reason shown. */
  forcedOn?: (values: Readonly<Record<string, string>>) => string | null;
};

const fail = (message: string) => ({ ok: false as const, message });

/** An entry the settings tabs edit, with how they show it. */
const shown = <T>(entry: OptionEntry<T>, ui: OptionUi): OptionEntry<T> => ({ ...entry, ui });

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
  /** With `url`: https only, except http on this machine (127.0.0.1, ::1, localhost), for a test provider. */
  secureUrl?: boolean;
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
        if (opts.secureUrl && !isSecureUrl(v)) return fail(`${key} 必须是 https:// 地址（仅本机地址可以使用 http://）`);
      }
      if (opts.normalize) v = opts.normalize(v);
      if (opts.choices && !opts.choices.includes(v)) return fail(`${key} 的值必须是 ${opts.choices.join("、")} 之一`);
      return { ok: true, value: v, raw: v };
    },
    format: String,
  };
}

const secretText = () => text("", { secret: true });

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Whether a sign-in provider's address may be trusted with credentials: https, or plain http to
 * this machine (a provider a test runs on loopback). Client-safe, so the settings tab checks it too.
 */
export function isSecureUrl(address: string): boolean {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return false;
  }
  return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
}

/** An OpenID Connect address (well-known document or endpoint): empty, or https (http on loopback). */
const oidcUrl = () => text("", { url: true, secureUrl: true });

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

/** `{"rpm": n, "tpm": n, "concurrency": n}`, each optional, integers ≥ 0 (0 = no limit). */
// A record of the three names, not z.object: zod compiles an object schema's parser with `new
// Function` when the schema is built, and this module loads in the browser, where the console's
// Content-Security-Policy forbids eval (the attempt alone is reported as a violation).
const LIMIT_SET_SHAPE = '应为形如 {"rpm": 60, "tpm": 100000, "concurrency": 5} 的对象';
const LIMIT_NAMES = "只能设置 rpm、tpm、concurrency";
const limitSet: z.ZodType<LimitSet> = z.partialRecord(
  z.enum(["rpm", "tpm", "concurrency"], { error: LIMIT_NAMES }),
  rateLimitCount("限制", 0),
  {
    // An unknown name comes as "unrecognized_keys", which the record's issue type leaves out.
    error: (issue) => {
      const code: string = issue.code;
      if (code === "invalid_type") return LIMIT_SET_SHAPE;
      return code === "invalid_key" || code === "unrecognized_keys" ? LIMIT_NAMES : undefined;
    },
  },
);
/** `{"group" or "*": limits}`: per user (UserRateLimits) or per whole group (GroupRateLimits). */
const groupLimits = namedTable(limitSet, '{"default": {"rpm": 60}}', "分组名不能为空");
/** `{"group" or "*": {"model": limits}}`: per user and model. */
const modelLimits = namedTable(
  namedTable(limitSet, '{"gpt-4o": {"rpm": 60}}', "模型名不能为空"),
  '{"default": {"gpt-4o": {"rpm": 60}}}',
  "分组名不能为空",
);
const routingStrategies = namedTable(
  z.enum(ROUTING_STRATEGIES, { error: `策略只能是 ${ROUTING_STRATEGIES.join("、")} 之一` }) as z.ZodType<RoutingStrategy>,
  '{"default": "least_inflight"}',
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

/** A log type's retention field: whole days, 0 keeps the rows for ever. */
const retentionUi = (label: string): OptionUi => ({
  section: "logs",
  label,
  suffix: " 天",
  description: "每天自动删除更早的日志，0 为永久保留",
  invalid: "请输入 0 到 36500 之间的整数",
});

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
  // ── Operation tab ──
  // General
  TopUpLink: shown(text(""), {
    section: "general",
    label: "充值链接",
    placeholder: "例如发卡网站的购买链接",
    description: "钱包页「获取兑换码」按钮打开的地址",
  }),
  ChatLink: shown(text(""), {
    section: "general",
    label: "默认聊天页面链接",
    placeholder: "例如 ChatGPT Next Web 的部署地址",
    description: "/chat2link 与令牌页聊天菜单的「默认聊天」打开此地址（附带令牌与服务器地址）",
  }),
  ChatLink2: shown(text(""), {
    section: "general",
    label: "聊天页面 2 链接",
    placeholder: "例如 ChatGPT Next Web 的部署地址",
    description: "令牌页聊天菜单的「聊天页面 2」打开此地址（附带令牌与服务器地址）",
  }),
  /** Quota units per US$1: per-call prices (ModelPrice) are billed with it, the console shows dollars with it. */
  QuotaPerUnit: shown(float(500_000, { positive: true }), {
    section: "general",
    label: "单位美元额度",
    description: "一美元能兑换的额度，按次计费的模型据此计费",
    invalid: "请输入大于 0 的数字",
  }),
  RetryTimes: shown(int(0, { min: 0 }), { section: "general", label: "失败重试次数" }),
  /**
   * How long a session's calls stay on the channel that last answered it (lib/relay/memory/
   * session-sticky.ts), so the vendor's prompt cache keeps hitting. An hour outlasts the pauses of
   * a coding session and Anthropic's longest cache lifetime; 0 turns stickiness off.
   */
  SessionStickyTTLSeconds: shown(int(3600, { min: 0 }), {
    section: "general",
    label: "会话粘滞时长（秒）",
    description: "携带会话标识（如 Claude Code、Codex 的会话头）的请求在此时长内优先使用上次应答的渠道，以命中上游提示缓存；0 表示关闭",
  }),
  DisplayInCurrencyEnabled: shown(bool(true), { section: "general", label: "以货币形式显示额度" }),
  DisplayTokenStatEnabled: shown(bool(true), {
    section: "general",
    label: "额度查询接口返回令牌额度而非用户额度",
    description: "/v1/dashboard/billing 接口：有额度上限的令牌报告令牌自身的额度",
  }),
  DefaultCollapseSidebar: shown(bool(false), { section: "general", label: "默认折叠侧边栏" }),
  /** Unpriced models are served (at new-api's fallback ratio) instead of being refused. */
  SelfUseModeEnabled: shown(bool(false), {
    section: "general",
    label: "自用模式",
    description: "未设置倍率或价格的模型默认被拒绝；开启后按默认倍率 37.5 计费并放行",
  }),

  // Drawing (Midjourney) and asynchronous tasks (Suno, video): new-api's flags and defaults. The
  // relay serves /mj, /suno and /v1/videos whatever they say; they show and hide the console pages.
  DrawingEnabled: shown(bool(false), { section: "drawing", label: "启用绘图功能" }),
  TaskEnabled: shown(bool(false), {
    section: "drawing",
    label: "启用异步任务功能",
    description: "侧边栏显示「异步任务」（Suno 音乐、视频生成）",
  }),
  MjNotifyEnabled: shown(bool(false), { section: "drawing", label: "允许回调（会泄露服务器 IP 地址）" }),
  MjAccountFilterEnabled: shown(bool(false), { section: "drawing", label: "允许 AccountFilter 参数" }),
  MjForwardUrlEnabled: shown(bool(true), { section: "drawing", label: "开启之后将上游地址替换为服务器地址" }),
  MjModeClearEnabled: shown(bool(false), {
    section: "drawing",
    label: "开启之后会清除用户提示词中的 --fast、--relax 以及 --turbo 参数",
  }),
  MjActionCheckSuccessEnabled: shown(bool(true), {
    section: "drawing",
    label: "检测必须等待绘图成功才能进行放大等操作",
  }),

  // Sensitive words (one word a line)
  CheckSensitiveEnabled: shown(bool(true), { section: "sensitive", label: "启用屏蔽词过滤功能" }),
  CheckSensitiveOnPromptEnabled: shown(bool(true), { section: "sensitive", label: "启用 Prompt 检查" }),
  SensitiveWords: shown(text("test_sensitive", { normalize: (v) => splitList(v, /\r?\n/, "\n") }), {
    section: "sensitive",
    label: "屏蔽词列表",
    description: "一行一个屏蔽词，不需要符号分割",
    input: "lines",
  }),
  CheckSensitiveOnCompletionEnabled: bool(false),
  StopOnSensitiveEnabled: bool(true),
  StreamCacheQueueLength: int(0, { min: 0 }),

  // Logs
  LogConsumeEnabled: shown(bool(true), { section: "logs", label: "启用额度消费日志记录" }),
  /** Days each log type is kept (lib/logs/retention.ts deletes older rows daily); 0 = for ever. */
  LogRetentionTopupDays: shown(int(0, { min: 0, max: 36_500 }), retentionUi("充值日志保留天数")),
  LogRetentionConsumeDays: shown(int(0, { min: 0, max: 36_500 }), retentionUi("消费日志保留天数")),
  LogRetentionManageDays: shown(int(0, { min: 0, max: 36_500 }), retentionUi("管理日志保留天数")),
  LogRetentionSystemDays: shown(int(0, { min: 0, max: 36_500 }), retentionUi("系统日志保留天数")),
  LogRetentionErrorDays: shown(int(0, { min: 0, max: 36_500 }), retentionUi("错误日志保留天数")),

  // Data dashboard
  /** Minutes between flushes of the usage buckets. */
  DataExportInterval: shown(int(5, { min: 1 }), {
    section: "dashboard",
    label: "数据看板更新间隔",
    suffix: " 分钟",
    description: "最小 1 分钟",
    invalid: "数据看板更新间隔不能小于 1 分钟",
  }),
  DataExportDefaultTime: shown(text("hour", { choices: ["hour", "day", "week"] }), {
    section: "dashboard",
    label: "数据看板默认时间粒度",
    choiceLabels: { hour: "小时", day: "天", week: "周" },
  }),
  DataExportEnabled: shown(bool(true), { section: "dashboard", label: "启用数据看板", description: "关闭后侧边栏不显示「数据看板」" }),

  // Monitoring
  /** Seconds; a channel test slower than this disables the channel. 0 = never. */
  ChannelDisableThreshold: shown(float(5, { min: 0 }), {
    section: "monitoring",
    label: "最长响应时间",
    suffix: " 秒",
    description: "测试时慢于此时间的通道将被自动禁用，0 为不限",
    invalid: "请输入不小于 0 的数字",
  }),
  QuotaRemindThreshold: shown(int(1000, { min: 0 }), {
    section: "monitoring",
    label: "额度提醒阈值",
    description: "低于此额度时将发送邮件提醒用户",
  }),
  /** Minutes between automatic tests of every channel (lib/relay/probe/schedule.ts); 0 = never. */
  ChannelTestInterval: shown(int(0, { min: 0, max: 10_080 }), {
    section: "monitoring",
    label: "定时测试所有通道",
    suffix: " 分钟",
    description: "每隔多少分钟测试一次全部通道，0 为关闭",
  }),
  AutomaticDisableChannelEnabled: shown(bool(false), { section: "monitoring", label: "失败时自动禁用通道" }),
  AutomaticEnableChannelEnabled: shown(bool(false), { section: "monitoring", label: "成功时自动启用通道" }),
  /**
   * Whether channels whose address an admin below root set may reach loopback, private,
   * link-local, CGNAT and unspecified addresses (Ollama and local vendors live on loopback).
   * Checked after DNS resolution, when a connection is opened; root's own addresses are not.
   */
  ChannelPrivateAddressAllowed: bool(true),

  // Routing (issue 26): the circuit breaker and the choice among channels of one priority
  ChannelBreakerEnabled: shown(bool(true), {
    section: "routing",
    label: "启用渠道熔断",
    description:
      "渠道（多密钥渠道则为其中的密钥）在统计窗口内失败（超时、5xx、连接错误）达到次数后暂停使用，冷却后放行一个试探请求，成功即恢复；认证错误仍由「失败时自动禁用通道」处理",
  }),
  ChannelBreakerFailures: shown(int(5, { min: 1, max: 1000 }), { section: "routing", label: "熔断失败次数" }),
  ChannelBreakerWindowSeconds: shown(int(60, { min: 1, max: 3600 }), { section: "routing", label: "统计窗口", suffix: " 秒" }),
  ChannelBreakerCooldownSeconds: shown(int(30, { min: 1, max: 86_400 }), { section: "routing", label: "冷却时间", suffix: " 秒" }),
  /** Per group: how the relay chooses among the channels of one priority (weighted when not listed). */
  ChannelRoutingStrategy: shown(json(routingStrategies, {}), {
    section: "routing",
    label: "分组路由策略",
    description:
      '{"组名": "策略"}，同一优先级内选择渠道的方式：weighted 按权重随机（默认）、least_inflight 进行中请求最少、lowest_latency 首字延迟最低',
    invalid: '分组路由策略应为 JSON 对象，形如 {"default": "least_inflight"}',
    wide: true,
  }),

  // Quota (quota units; QuotaPerUnit of them = US$1)
  QuotaForNewUser: shown(int(0, { min: 0 }), { section: "quota", label: "新用户初始额度" }),
  PreConsumedQuota: shown(int(500, { min: 0 }), {
    section: "quota",
    label: "请求预扣费额度",
    description: "请求未设置 max_tokens 时预留的补全 token 数",
  }),
  QuotaForInviter: shown(int(0, { min: 0 }), { section: "quota", label: "邀请新用户奖励额度" }),
  QuotaForInvitee: shown(int(0, { min: 0 }), { section: "quota", label: "新用户使用邀请码奖励额度" }),

  // Rate limit (new-api's wording)
  ModelRequestRateLimitDurationMinutes: shown(int(1, { min: 1 }), {
    section: "rateLimit",
    label: "限制周期",
    suffix: " 分钟",
    description: "频率限制的周期（分钟）",
  }),
  /** Requests per user and window, failures included; 0 = no limit. */
  ModelRequestRateLimitCount: shown(int(0, { min: 0 }), {
    section: "rateLimit",
    label: "用户每周期最多请求次数",
    description: "包括失败请求的次数，0 代表不限制",
  }),
  /** Successful requests per user and window; 0 = no limit. */
  ModelRequestRateLimitSuccessCount: shown(int(1000, { min: 0 }), {
    section: "rateLimit",
    label: "用户每周期最多请求完成次数",
    description: "只包括请求成功的次数，0 代表不限制",
  }),
  ModelRequestRateLimitEnabled: shown(bool(false), {
    section: "rateLimit",
    label: "启用用户模型请求速率限制",
    description: "超出限制的请求返回 429",
  }),
  /** Per group (the key's, else the user's): [requests, successes] in place of the two above. */
  ModelRequestRateLimitGroup: shown(json(rateLimitGroups, {}), {
    section: "rateLimit",
    label: "分组速率限制",
    description:
      '{"组名": [最多请求次数, 最多请求完成次数]}，例如 {"default": [200, 100], "vip": [0, 1000]}；最多请求次数不小于 0（0 为不限），最多请求完成次数不小于 1。分组的配置优先于上面的全局限制，周期统一使用「限制周期」。',
    invalid: '分组速率限制应为 JSON 对象，形如 {"default": [200, 100]}：最多请求次数不小于 0，最多请求完成次数不小于 1',
  }),

  /** Per user, by the caller's group ("*": every group not listed). */
  UserRateLimits: shown(json(groupLimits, {}), {
    section: "rateLimit",
    label: "用户限制",
    description:
      '每个用户的每分钟请求数、每分钟 token 数和并发数，按分组设置（"*" 为其余分组），例如 {"default": {"rpm": 60, "tpm": 100000, "concurrency": 5}}；0 或不写为不限',
    invalid: '用户限制应为 JSON 对象，形如 {"default": {"rpm": 60}}',
    wide: true,
  }),
  /** Per whole group: every user of the group together. */
  GroupRateLimits: shown(json(groupLimits, {}), {
    section: "rateLimit",
    label: "分组总限制",
    description: '整个分组所有用户合计的限制，例如 {"default": {"rpm": 6000, "concurrency": 200}}',
    invalid: '分组总限制应为 JSON 对象，形如 {"default": {"rpm": 6000}}',
    wide: true,
  }),
  /** Per user and model, by the caller's group ("*": every group not listed). */
  ModelRateLimits: shown(json(modelLimits, {}), {
    section: "rateLimit",
    label: "模型限制",
    description: '每个用户对单个模型的限制，按分组设置，例如 {"default": {"gpt-4o": {"rpm": 60}}}',
    invalid: '模型限制应为 JSON 对象，形如 {"default": {"gpt-4o": {"rpm": 60}}}',
    wide: true,
  }),

  // Chats
  Chats: shown(json(chats, DEFAULT_CHATS), {
    section: "chats",
    label: "聊天配置",
    description: '一个 JSON 数组，每一项形如 {"名称": "链接"}；链接中的 {key} 换成用户的令牌，{address} 换成服务器地址。',
    invalid: '聊天配置应为 JSON 数组，每一项形如 {"名称": "链接"}',
  }),

  // Ratios and prices
  ModelPrice: shown(json(numberTable("价格"), DEFAULT_MODEL_PRICE), {
    section: "ratio",
    label: "模型固定价格",
    description: "一次调用消耗多少美元，键为模型名称；列在这里的模型按次计费，优先于模型倍率",
  }),
  ModelRatio: shown(json(numberTable("倍率"), DEFAULT_MODEL_RATIO), {
    section: "ratio",
    label: "模型倍率",
    description: "为一个 JSON 文本，键为模型名称，值为倍率",
  }),
  CompletionRatio: shown(json(numberTable("补全倍率"), DEFAULT_COMPLETION_RATIO), {
    section: "ratio",
    label: "模型补全倍率",
    description: "为一个 JSON 文本，键为模型名称，值为补全倍率；这里设置的值优先于内置的补全倍率",
  }),
  GroupRatio: shown(json(numberTable("分组倍率"), { default: 1, vip: 1, svip: 1 }), {
    section: "ratio",
    label: "分组倍率",
    description: "为一个 JSON 文本，键为分组名称，值为倍率",
  }),
  UserUsableGroups: shown(json(userUsableGroups, { default: "默认分组", vip: "vip分组" }), {
    section: "ratio",
    label: "用户可选分组",
    description: "为一个 JSON 文本，键为分组名称，值为分组描述；用户创建令牌、使用操练场时可以选择这些分组",
  }),
  TopupGroupRatio: shown(json(numberTable("充值分组倍率"), { default: 1, vip: 1, svip: 1 }), {
    section: "ratio",
    label: "充值分组倍率",
    description: "为一个 JSON 文本，键为分组名称，值为充值价格的倍率",
  }),
  CacheRatio: json(numberTable("缓存倍率"), DEFAULT_CACHE_RATIO),

  // ── System tab ──
  // Server and worker proxy
  /** Until an admin sets one: this server on its own port (setLocalServerAddress, called by lib/options/index.ts). */
  ServerAddress: shown(text("http://localhost:3000", { url: true }), {
    section: "server",
    label: "服务器地址",
    placeholder: "例如：https://yourdomain.com",
    description: "用于支付回调、邀请链接、邮件中的链接与第三方登录的回调地址",
    wide: true,
  }),
  /** The bearer token of GET /metrics (lib/metrics/scrape.ts); empty: /metrics answers 404. METRICS_TOKEN overrides it. */
  MetricsToken: shown(secretText(), {
    section: "metrics",
    label: "监控指标令牌",
    placeholder: "留空则关闭 /metrics",
    description: "Prometheus 抓取 /metrics 时以 Authorization: Bearer <令牌> 携带；环境变量 METRICS_TOKEN 设置时以其为准",
  }),
  WorkerUrl: shown(text("", { url: true }), {
    section: "worker",
    label: "Worker 地址",
    placeholder: "例如：https://workername.yourdomain.workers.dev",
  }),
  WorkerValidKey: shown(secretText(), { section: "worker", label: "Worker 密钥" }),

  // Online top-up (EPay)
  PayAddress: shown(text("", { url: true }), { section: "payment", label: "支付地址", placeholder: "例如：https://yourdomain.com" }),
  EpayId: shown(text(""), { section: "payment", label: "易支付商户 ID", placeholder: "例如：0001" }),
  EpayKey: shown(secretText(), { section: "payment", label: "易支付商户密钥" }),
  CustomCallbackAddress: shown(text("", { url: true }), { section: "payment", label: "回调地址", placeholder: "留空则使用服务器地址" }),
  /** Top-up currency per US$1. */
  Price: shown(float(7.3, { min: 0 }), { section: "payment", label: "充值价格（x 元/美金）" }),
  MinTopUp: shown(int(1, { min: 1 }), { section: "payment", label: "最低充值美元数量" }),

  // Online top-up (Stripe Checkout; new-api's option names). On once the three texts are all set.
  StripeApiSecret: shown(secretText(), { section: "stripe", label: "API 密钥", placeholder: "sk_… 或 rk_…" }),
  StripeWebhookSecret: shown(secretText(), { section: "stripe", label: "Webhook 签名密钥", placeholder: "whsec_…" }),
  StripePriceId: shown(text(""), {
    section: "stripe",
    label: "商品价格 ID",
    placeholder: "price_…",
    description: "Stripe 中一个价格的 ID：收款用它的币种与商品",
  }),
  /** The Stripe price's currency per US$1 of quota. */
  StripeUnitPrice: shown(float(8, { min: 0 }), {
    section: "stripe",
    label: "充值价格（x 价格币种/美金）",
    description: "每充值 1 美元额度收取的金额，币种为上述价格的币种",
  }),

  // Login and registration (each switch saves at once)
  PasswordLoginEnabled: shown(bool(true), { section: "login", label: "允许通过密码进行登录" }),
  PasswordRegisterEnabled: shown(bool(true), { section: "login", label: "允许通过密码进行注册" }),
  EmailVerificationEnabled: shown(bool(false), { section: "login", label: "通过密码注册时需要进行邮箱验证" }),
  RegisterEnabled: shown(bool(true), { section: "login", label: "允许新用户注册（此项为否时，新用户将无法以任何方式进行注册）" }),
  GitHubOAuthEnabled: shown(bool(false), { section: "login", label: "允许通过 GitHub 账户登录 & 注册" }),
  LinuxDOOAuthEnabled: shown(bool(false), { section: "login", label: "允许通过 LinuxDO 账户登录 & 注册" }),
  WeChatAuthEnabled: shown(bool(false), { section: "login", label: "允许通过微信登录 & 注册" }),
  TelegramOAuthEnabled: shown(bool(false), { section: "login", label: "允许通过 Telegram 进行登录" }),
  /** new-api's dotted OIDC keys (its `oidc` settings group), so an options table moved from it keeps them. */
  "oidc.enabled": shown(bool(false), { section: "login", label: "允许通过 OIDC 登录 & 注册" }),
  TurnstileCheckEnabled: shown(bool(false), { section: "login", label: "启用 Turnstile 用户校验" }),

  // E-mail domains
  /** Comma-separated domains. */
  EmailDomainWhitelist: shown(text(DEFAULT_EMAIL_DOMAINS.join(","), { normalize: (v) => splitList(v.toLowerCase(), /[,\s]+/, ",") }), {
    section: "emailDomains",
    label: "允许的邮箱域名",
    placeholder: "输入域名后回车",
    input: "tags",
    wide: true,
  }),
  EmailDomainRestrictionEnabled: shown(bool(false), { section: "emailDomains", label: "启用邮箱域名白名单" }),
  /** Rejects "+" and "." in the local part of an address. */
  EmailAliasRestrictionEnabled: shown(bool(false), { section: "emailDomains", label: "启用邮箱别名限制（例如：ab.cd@gmail.com）" }),

  // SMTP
  SMTPServer: shown(text(""), { section: "smtp", label: "SMTP 服务器地址", placeholder: "例如：smtp.qq.com" }),
  SMTPPort: shown(int(587, { min: 1, max: 65535 }), { section: "smtp", label: "SMTP 端口", description: "默认 587" }),
  SMTPAccount: shown(text(""), { section: "smtp", label: "SMTP 账户", placeholder: "通常是邮箱地址" }),
  SMTPFrom: shown(text(""), { section: "smtp", label: "SMTP 发送者邮箱", placeholder: "通常和邮箱地址保持一致" }),
  SMTPToken: shown(secretText(), { section: "smtp", label: "SMTP 访问凭证" }),
  SMTPSSLEnabled: shown(bool(false), {
    section: "smtp",
    label: "启用 SMTP SSL",
    forcedOn: (v) => (v.SMTPPort?.trim() === "465" ? "端口 465 必须使用 SSL" : null),
  }),

  // Third-party login
  GitHubClientId: shown(text(""), { section: "github", label: "GitHub Client ID" }),
  GitHubClientSecret: shown(secretText(), { section: "github", label: "GitHub Client Secret" }),
  LinuxDOClientId: shown(text(""), { section: "linuxdo", label: "LinuxDO Client ID" }),
  LinuxDOClientSecret: shown(secretText(), { section: "linuxdo", label: "LinuxDO Client Secret" }),
  WeChatServerAddress: shown(text("", { url: true }), {
    section: "wechat",
    label: "WeChat Server 服务器地址",
    placeholder: "例如：https://yourdomain.com",
  }),
  WeChatServerToken: shown(secretText(), { section: "wechat", label: "WeChat Server 访问凭证" }),
  WeChatAccountQRCodeImageURL: shown(text(""), { section: "wechat", label: "微信公众号二维码图片链接", placeholder: "输入一个图片链接" }),
  TelegramBotToken: shown(secretText(), { section: "telegram", label: "Telegram Bot Token" }),
  TelegramBotName: shown(text(""), { section: "telegram", label: "Telegram Bot 名称" }),
  "oidc.display_name": shown(text(""), { section: "oidc", label: "登录按钮名称", placeholder: "留空则显示 OIDC" }),
  "oidc.client_id": shown(text(""), { section: "oidc", label: "Client ID" }),
  "oidc.client_secret": shown(secretText(), { section: "oidc", label: "Client Secret" }),
  "oidc.well_known": shown(oidcUrl(), {
    section: "oidc",
    label: "Well-Known URL",
    placeholder: "例如：https://idp.example.com/.well-known/openid-configuration",
    description: "保存时从中读取下面三个端点；签名密钥与签发者也从这里读取",
    wide: true,
  }),
  /** Derived from the well-known document when saved (as new-api's settings page does); editable to override. */
  "oidc.authorization_endpoint": shown(oidcUrl(), { section: "oidc", label: "Authorization Endpoint" }),
  "oidc.token_endpoint": shown(oidcUrl(), { section: "oidc", label: "Token Endpoint" }),
  "oidc.user_info_endpoint": shown(oidcUrl(), { section: "oidc", label: "User Info Endpoint" }),
  TurnstileSiteKey: shown(text(""), { section: "turnstile", label: "Turnstile Site Key" }),
  TurnstileSecretKey: shown(secretText(), { section: "turnstile", label: "Turnstile Secret Key" }),

  // ── Other tab: texts every visitor sees ──
  Notice: shown(text("", { verbatim: true }), {
    section: "other",
    label: "公告",
    placeholder: "在此输入新的公告内容，支持 Markdown & HTML 代码",
    input: "markdown",
  }),
  SystemName: shown(text("Qiao"), { section: "other", label: "系统名称", placeholder: "在此输入系统名称" }),
  Logo: shown(text("/logo.png"), { section: "other", label: "Logo 图片地址", placeholder: "在此输入 Logo 图片地址" }),
  HomePageContent: shown(text("", { verbatim: true }), {
    section: "other",
    label: "首页内容",
    placeholder:
      "在此输入首页内容，支持 Markdown & HTML 代码，设定之后首页的状态信息将不再显示。如果输入的是一个链接，则会使用该链接作为 iframe 的 src 属性，这允许你设置任意网页作为首页。",
    input: "markdown",
  }),
  About: shown(text("", { verbatim: true }), {
    section: "other",
    label: "关于",
    placeholder:
      "在此输入新的关于内容，支持 Markdown & HTML 代码。如果输入的是一个链接，则会使用该链接作为 iframe 的 src 属性，这允许你设置任意网页作为关于页面。",
    input: "markdown",
  }),
  Footer: shown(text("", { verbatim: true }), {
    section: "other",
    label: "页脚",
    placeholder: "在此输入新的页脚，留空则使用默认页脚，支持 Markdown & HTML 代码",
    input: "markdown",
  }),

  // ── Not offered in the console ──
  // File and image permissions (minimum role)
  FileUploadPermission: int(0, { min: 0, max: 100 }),
  FileDownloadPermission: int(0, { min: 0, max: 100 }),
  ImageUploadPermission: int(0, { min: 0, max: 100 }),
  ImageDownloadPermission: int(0, { min: 0, max: 100 }),
  DemoSiteEnabled: bool(false),
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

/**
 * Reads a stored value. A value the current rules refuse (written by an older version, or by
 * hand) falls back to the default instead of breaking every page that reads options; `invalid`
 * says why, for the server's log (this module is also loaded in the browser: it logs nothing).
 */
export function readStoredOption<K extends OptionKey>(key: K, raw: string): { value: OptionValue<K>; raw: string; invalid?: string } {
  const parsed = entryOf(key).parse(key, raw);
  if (parsed.ok) return { value: parsed.value, raw: parsed.raw };
  return { value: OPTION_REGISTRY[key].default as OptionValue<K>, raw: defaultRaw(key), invalid: parsed.message };
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

/** One field of a settings section: the entry's UI with its input and limits resolved. */
export type OptionField = Omit<OptionUi, "input"> & {
  key: OptionKey;
  input: OptionInput;
  kind: OptionKind;
  min?: number;
  max?: number;
  choices?: readonly { value: string; label: string }[];
};

function inputOf(entry: OptionEntry<unknown>): OptionInput {
  if (entry.ui?.input) return entry.ui.input;
  if (entry.secret) return "secret";
  if (entry.kind === "bool") return "switch";
  if (entry.kind === "int" || entry.kind === "float") return "number";
  if (entry.kind === "json") return "json";
  return entry.choices ? "select" : "text";
}

/** The fields of a settings section, in the registry's order (the order the tab shows and saves them). */
export function sectionFields(section: OptionSection): OptionField[] {
  const fields: OptionField[] = [];
  for (const key of OPTION_KEYS) {
    const entry: OptionEntry<unknown> = OPTION_REGISTRY[key];
    if (entry.ui?.section !== section) continue;
    const labels = entry.ui.choiceLabels;
    fields.push({
      ...entry.ui,
      key,
      input: inputOf(entry),
      kind: entry.kind,
      min: entry.min,
      max: entry.max,
      choices: entry.choices?.map((value) => ({ value, label: labels?.[value] ?? value })),
    });
  }
  return fields;
}

/** The options a settings tab edits. */
export const tabKeys = (tab: OptionTab): OptionKey[] =>
  OPTION_KEYS.filter((key) => {
    const ui: OptionUi | undefined = OPTION_REGISTRY[key].ui;
    return ui !== undefined && OPTION_SECTIONS[ui.section] === tab;
  });

/**
 * What a settings field says about a value before it is sent, or null when the server would take
 * it: the server's own parser, naming the field by its label (or the entry's `invalid` text).
 */
export function formError(key: OptionKey, raw: string): string | null {
  const entry = entryOf(key);
  const parsed = entry.parse(entry.ui?.label ?? key, raw);
  if (parsed.ok) return null;
  if (parsed.message === INVALID_JSON_MESSAGE) return parsed.message;
  return entry.ui?.invalid ?? parsed.message;
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
  "oidc.enabled": {
    needs: ["oidc.client_id", "oidc.client_secret", "oidc.well_known"],
    message: "无法启用 OIDC 登录，请先填入 OIDC Client Id、Client Secret 以及 Well-Known URL！",
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
const NEEDS_SERVER_ADDRESS: ReadonlySet<OptionKey> = new Set([
  "PayAddress",
  "EpayId",
  "EpayKey",
  "StripeApiSecret",
  "StripeWebhookSecret",
  "StripePriceId",
]);

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
