// Masking of upstream error text shown to API users. An upstream's message can carry what only
// an admin may see: the channel's key echoed back ("Incorrect API key provided: sk-…"), bearer
// tokens, signed URLs, the channel's base URL, internal hosts and addresses. Users get the text
// with those replaced; admins read the full text in the log row's `other.admin_info`.

/** What replaces a masked key or token (after a kept prefix such as `sk-` or `Bearer `). */
const KEY_MASK = "***";
const URL_MASK = "[url]";
const HOST_MASK = "[host]";

/** scheme://… up to whitespace or a quote; trailing sentence punctuation is given back. */
const URL_RE = /\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s"'<>`]+/gi;
const URL_TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/;
/** HTTP credentials: `Bearer <token>`, `Basic <base64>` (a word after "basic" in prose stays). */
const BEARER_RE = /\b(Bearer(?:\s+)|Basic\s+(?=[A-Za-z0-9+/]{8,}={0,2}(?![\w+/=])))[^\s"',;]+/gi;
/** `api_key=…`, `access_token=…` (query and form style) and `"api_key": "…"` (echoed JSON). */
const ASSIGNED_SECRET_RE =
  /\b(api[_-]?key|access[_-]?token|refresh[_-]?token|client[_-]?secret|secret[_-]?key|secret|password|passwd|token|key|sig|signature)(=)[^\s"'&,;]+/gi;
const JSON_SECRET_RE = /(["']?)(api[_-]?key|access[_-]?token|client[_-]?secret|secret[_-]?key|secret|password|token)\1(\s*:\s*)"[^"]*"/gi;
/** Keys with a vendor prefix: OpenAI-style sk- (sk-proj-, sk-ant-, sk-or-…), Google, AWS, GitHub, Hugging Face, Groq, xAI, NVIDIA. */
const PREFIXED_KEY_RE = /\b(sk-|AIza|AKIA|gh[pousr]_|hf_|gsk_|xai-|nvapi-)[A-Za-z0-9_*-]{4,}/g;
const JWT_RE = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?/g;
/**
 * A run of 20+ letters and digits mixing both: key-shaped (hex and base62 keys, signatures). Model
 * names never qualify: their parts are short and joined by hyphens or dots.
 */
const LONG_TOKEN_RE = /(?<![A-Za-z0-9])[A-Za-z0-9]{20,}(?![A-Za-z0-9])/g;
const HAS_DIGIT = /\d/;
const HAS_LETTER = /[A-Za-z]/;
const IPV6_BRACKETED_RE = /\[[0-9a-f:.]*:[0-9a-f:.]*(?:%[\w.-]+)?\](?::\d{1,5})?/gi;
const IPV4_RE = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g;
const IPV6_RE = /(?<![\w:.])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:])/gi;
/** IPv6 needs "::" or all eight groups; "12:30:45" is a time. */
const IPV6_SHAPE = /::|(?:[^:]*:){7}/;
const HOSTNAME_RE = /(?<![\w.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z][a-z0-9-]{0,62})(?::\d{1,5})?(?![\w-])/gi;
const LOCALHOST_RE = /\blocalhost(?::\d{1,5})?\b/gi;
/**
 * Last labels that make a dotted word a host name. A list rather than "any word": upstream
 * messages name fields the same way (`messages.0.content`, `generation_config.top_k`).
 */
const HOST_SUFFIXES = new Set(
  (
    "com net org edu gov mil int io ai cn dev app cloud co info biz me tech xyz site online top vip pro one run sh so to tv cc ws " +
    "us uk de fr nl jp kr hk tw sg ru in eu ca au br ch se no fi es it pl be at dk ie nz za vn id th my ph " +
    "local localhost localdomain internal intranet lan home corp private svc cluster arpa test example invalid"
  ).split(" "),
);

function maskUrl(match: string): string {
  const trailing = URL_TRAILING_PUNCTUATION.exec(match)?.[0] ?? "";
  return URL_MASK + trailing;
}

function maskLongToken(match: string): string {
  return HAS_DIGIT.test(match) && HAS_LETTER.test(match) ? KEY_MASK : match;
}

function maskIpv6(match: string): string {
  return IPV6_SHAPE.test(match) ? HOST_MASK : match;
}

function maskHostname(match: string, suffix: string): string {
  return HOST_SUFFIXES.has(suffix.toLowerCase()) ? HOST_MASK : match;
}

/**
 * The text with keys, tokens, URLs, host names and IP addresses replaced (`sk-***`,
 * `Bearer ***`, `api_key=***`, `[url]`, `[host]`); everything else is left as it was.
 */
export function maskSensitiveText(text: string): string {
  return text
    .replace(URL_RE, maskUrl)
    .replace(BEARER_RE, `$1${KEY_MASK}`)
    .replace(ASSIGNED_SECRET_RE, `$1$2${KEY_MASK}`)
    .replace(JSON_SECRET_RE, `$1$2$1$3"${KEY_MASK}"`)
    .replace(PREFIXED_KEY_RE, `$1${KEY_MASK}`)
    .replace(JWT_RE, KEY_MASK)
    .replace(LONG_TOKEN_RE, maskLongToken)
    .replace(IPV6_BRACKETED_RE, HOST_MASK)
    .replace(IPV4_RE, HOST_MASK)
    .replace(IPV6_RE, maskIpv6)
    .replace(HOSTNAME_RE, maskHostname)
    .replace(LOCALHOST_RE, HOST_MASK);
}

/** The parts of a channel key an upstream could echo: each line, and each part of an `AK|SK|Region` key. */
function secretParts(key: string): string[] {
  const parts = new Set<string>();
  for (const line of key.split(/\r?\n/)) {
    const trimmed = line.trim();
    parts.add(trimmed);
    for (const piece of trimmed.split("|")) parts.add(piece.trim());
  }
  return [...parts].filter((p) => p.length >= 6).sort((a, b) => b.length - a.length);
}

/**
 * `text` with every occurrence of the channel's key (or a line or `|` part of it) replaced by `***`.
 * Admins below root never read a channel key, so upstream text kept for admins (test results,
 * the auto-disable reason, admin_info.error_message) goes through this first.
 */
export function hideKey(text: string, key: string): string {
  let out = text;
  for (const part of secretParts(key)) out = out.split(part).join(KEY_MASK);
  return out;
}
