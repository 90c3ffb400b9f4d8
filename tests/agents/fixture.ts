// The recorded coding-agent sessions under tests/fixtures/agents/<agent>/<scenario>.json: their
// shape, and the scrubbing that makes a recording safe to commit and stable to re-record. The
// replay tests read exactly this shape, so it changes only together with them.
import path from "node:path";

export const AGENTS = ["claude-code", "codex", "gemini-cli", "qwen-code", "opencode"] as const;
export const SCENARIOS = ["plain", "tool"] as const;
export const PROTOCOLS = ["anthropic", "responses", "gemini", "openai"] as const;

export type AgentName = (typeof AGENTS)[number];
export type Scenario = (typeof SCENARIOS)[number];
export type Protocol = (typeof PROTOCOLS)[number];

/**
 * Recordings of an agent in another configuration, kept beside its default one under their own
 * id (their folder and `agent` field). Codex's request shape depends on its model: configured
 * with one it has no metadata for, as gateway users usually do, it sends `tools` with namespaces
 * and `web_search` instead of its default model's `additional_tools` item.
 */
export const VARIANTS = [{ id: "codex-gpt-5.4", agent: "codex", codexModel: "gpt-5.4" }] as const;

/** Every recorded fixture folder: the agents' defaults, then their variants. */
export const FIXTURE_IDS = [...AGENTS, ...VARIANTS.map((v) => v.id)] as const;
export type FixtureId = AgentName | (typeof VARIANTS)[number]["id"];

export interface RecordedRequest {
  method: string;
  /** Path and query as sent, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Lower-cased header names; credentials and hop-by-hop headers removed. */
  headers: Record<string, string>;
  /** The parsed JSON body, or null for a body-less request. */
  body: unknown;
}

export interface AgentFixture {
  /** The agent, or for a variant (see VARIANTS) the variant's id, e.g. `codex-gpt-5.4`. */
  agent: string;
  version: string;
  recordedAt: string;
  protocol: Protocol;
  scenario: Scenario;
  requests: RecordedRequest[];
}

export const FIXTURES_DIR = path.join(import.meta.dirname, "../fixtures/agents");

export const fixturePath = (id: string, scenario: Scenario) => path.join(FIXTURES_DIR, id, `${scenario}.json`);

/**
 * Headers never kept: the credentials (whatever their name) and the ones that describe this one
 * connection rather than what the agent asked for.
 */
export const DROPPED_HEADERS = new Set([
  "authorization",
  "x-api-key",
  "x-goog-api-key",
  "api-key",
  "host",
  "content-length",
  "connection",
  "accept-encoding",
]);

/** A header name that looks like it carries a credential; no fixture may keep one. */
export const CREDENTIAL_HEADER = /(^|-)(auth|authorization|api-?key|token|secret|cookie)($|-)/i;

/** Credential-looking strings: OpenAI/Anthropic-style keys, bearer tokens, Google API keys. */
export const SECRET_PATTERNS = [/(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{8,}/, /Bearer\s+[A-Za-z0-9._~+/=-]{8,}/, /AIza[0-9A-Za-z_-]{20,}/];

export const REDACTED = "<redacted>";

/** The key agents are given while recording: no real vendor issues it, so finding it in a fixture means scrubbing failed. */
export const RECORDING_KEY = "qiao-recording-key-5f0c3a9e71d24b68";

/**
 * Machine-specific strings (temp folders, the install folder) mapped to stable placeholders, so
 * a re-recording differs only where the agent changed.
 */
export type Placeholders = [from: string, to: string][];

/**
 * Agents also name folders after a path with its separators turned into dashes (Claude Code's
 * and qwen-code's per-project memory, `-tmp-qiao-record-x1-project`): those get the placeholder's
 * dashed form too.
 */
function withDashedForms(places: Placeholders): Placeholders {
  const dashed = (p: string) => p.replace(/[^A-Za-z0-9]/g, "-");
  return [...places, ...places.filter(([from]) => from.startsWith("/")).map(([from, to]): [string, string] => [dashed(from), dashed(to)])];
}

function scrubText(text: string, secrets: string[], places: Placeholders): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join(REDACTED);
  // Longest first, so a folder inside another one is replaced before its parent.
  for (const [from, to] of [...places].sort((a, b) => b[0].length - a[0].length)) if (from) out = out.split(from).join(to);
  return out;
}

function scrubValue(value: unknown, secrets: string[], places: Placeholders): unknown {
  if (typeof value === "string") return scrubText(value, secrets, places);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets, places));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [scrubText(k, secrets, places), scrubValue(v, secrets, places)] as const),
    );
  }
  return value;
}

/** One request as it will be committed: credentials gone, local paths replaced. */
export function scrubRequest(
  raw: { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: string },
  secrets: string[],
  placeholders: Placeholders,
): RecordedRequest {
  const places = withDashedForms(placeholders);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw.headers)) {
    const key = name.toLowerCase();
    if (value === undefined || DROPPED_HEADERS.has(key) || CREDENTIAL_HEADER.test(key)) continue;
    headers[key] = scrubText(Array.isArray(value) ? value.join(", ") : value, secrets, places);
  }
  let body: unknown = null;
  if (raw.body.length > 0) {
    try {
      body = JSON.parse(raw.body);
    } catch {
      // A non-JSON body is kept as text: the fixture records what was sent, not what we expected.
      body = raw.body;
    }
  }
  return { method: raw.method, path: scrubText(raw.path, secrets, places), headers, body: scrubValue(body, secrets, places) };
}
