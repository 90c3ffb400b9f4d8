// Masking of upstream text before anyone reads it. An upstream's message can carry what nobody
// should read in the console: the channel's key echoed back ("Incorrect API key provided: sk-…"),
// a bearer token the relay sent (an attacker's host echoing Vertex's Google access token `ya29.…`),
// keys of other vendors, JWTs, signed URLs, internal hosts and addresses.
// - Admins read upstream text (channel tests, balance and model-list errors, auto-disable reasons
//   and mails, the error rows' admin_info) through `hideSecrets`: the channel's key and every
//   key- or token-shaped string are cut out; hosts and URLs stay, they help an admin debug.
// - Users read `maskSensitiveText`: the same secrets, and URLs, host names and addresses too.

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
const JSON_SECRET_RE =
  /(["']?)(api[_-]?key|access[_-]?token|refresh[_-]?token|id[_-]?token|client[_-]?secret|private[_-]?key|secret[_-]?key|secret|password|token|authorization|assertion)\1(\s*:\s*)"[^"]*"/gi;
/** Keys with a vendor prefix: OpenAI-style sk- (sk-proj-, sk-ant-, sk-or-…), Google API keys, GitHub, Hugging Face, Groq, xAI, NVIDIA. */
const PREFIXED_KEY_RE = /\b(sk-|AIza|gh[pousr]_|hf_|gsk_|xai-|nvapi-)[A-Za-z0-9_*-]{4,}/g;
/** AWS access key ids: long-term (AKIA) and temporary (ASIA). */
const AWS_KEY_RE = /\b(AKIA|ASIA)[A-Z0-9]{12,}\b/g;
/** Google OAuth access tokens (what Vertex AI channels send as their bearer token). */
const GOOGLE_ACCESS_TOKEN_RE = /\b(ya29\.)[A-Za-z0-9._-]*[A-Za-z0-9_-]/g;
/** A PEM private key (a service-account JSON key echoed back), up to its end marker or the text's end. */
const PEM_KEY_RE = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;
/** Credentials named as headers: `x-api-key: …`, `Authorization: …` (a Bearer or Basic one is masked by BEARER_RE). */
const HEADER_SECRET_RE =
  /\b(x-api-key|api-key|x-goog-api-key|authorization)(\s*:\s*)(?!(?:Bearer|Basic)\s)(?:(?:Token|Key|ApiKey)\s+)?[^\s"',;]+/gi;
/**
 * A long secret after the word naming it: "invalid api key 3f2a…", "token: A1b2…". Masked when it
 * mixes letters and digits in a long run (a model name's parts are short: "key claude-3-5-sonnet-20241022" stays).
 */
const NAMED_SECRET_RE = /\b(key|token|secret|signature|credential)(s?[\s:='"]{1,3})([A-Za-z0-9+/_-]{20,}={0,2})/gi;
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

const LONG_RUN = /[A-Za-z0-9]{16}/;

function maskNamedSecret(match: string, name: string, between: string, value: string): string {
  return HAS_DIGIT.test(value) && HAS_LETTER.test(value) && LONG_RUN.test(value) ? `${name}${between}${KEY_MASK}` : match;
}

/** Keys and tokens recognised by their shape, whoever's they are: `sk-***`, `ya29.***`, `Bearer ***`, `api_key=***`. */
function maskSecretShapes(text: string): string {
  return text
    .replace(PEM_KEY_RE, KEY_MASK)
    .replace(BEARER_RE, `$1${KEY_MASK}`)
    .replace(HEADER_SECRET_RE, `$1$2${KEY_MASK}`)
    .replace(ASSIGNED_SECRET_RE, `$1$2${KEY_MASK}`)
    .replace(JSON_SECRET_RE, `$1$2$1$3"${KEY_MASK}"`)
    .replace(GOOGLE_ACCESS_TOKEN_RE, `$1${KEY_MASK}`)
    .replace(PREFIXED_KEY_RE, `$1${KEY_MASK}`)
    .replace(AWS_KEY_RE, `$1${KEY_MASK}`)
    .replace(JWT_RE, KEY_MASK)
    .replace(NAMED_SECRET_RE, maskNamedSecret);
}

/**
 * What users read of upstream text: keys and tokens, URLs, host names and IP addresses replaced
 * (`sk-***`, `Bearer ***`, `api_key=***`, `[url]`, `[host]`); everything else as it was.
 */
export function maskSensitiveText(text: string): string {
  return maskSecretShapes(text.replace(URL_RE, maskUrl))
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

/** `text` with every occurrence of the channel's key (or a line or `|` part of it) replaced by `***`. */
function hideKey(text: string, key: string): string {
  let out = text;
  for (const part of secretParts(key)) out = out.split(part).join(KEY_MASK);
  return out;
}

/**
 * What admins read of upstream text: the channel's `key` (when known) and every key- or
 * token-shaped string cut out, the rest as it was. Every place that shows or stores upstream text
 * for the console goes through this: channel tests, balance and model-list errors, auto-disable
 * reasons and mails, error rows.
 */
export function hideSecrets(text: string, key = ""): string {
  return maskSecretShapes(hideKey(text, key));
}
