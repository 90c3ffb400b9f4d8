// Session stickiness: the calls of one agent session go to the channel that answered the last one,
// so the vendor's prompt cache (keyed by account and prefix) keeps hitting. A session is named by
// the caller: Claude Code's `x-claude-code-session-id` header, Codex's `session-id` / `thread-id`
// (0.17x; `session_id` / `conversation_id` before), OpenCode's `x-session-affinity` /
// `x-session-id`, the Responses (and chat) body's `prompt_cache_key`, the Anthropic body's
// `metadata.user_id`; Gemini CLI and qwen-code send no such name and are not held. The header
// names are those the recorded sessions carry (tests/fixtures/agents).
//
// The map, (user, group, model, session) → channel, lives in this process only, bounded to
// MAX_SESSIONS entries (the least recently answered go first) and kept SessionStickyTTLSeconds
// after the last answer. Several instances behind a balancer each keep their own map: sharing it
// through Redis is issue 27's. The session name itself is never kept or logged, only a hash of it.
import { createHash } from "node:crypto";
import type { CallContext } from "@/lib/relay/call/call-context";
import { isObj } from "@/lib/obj";
import { processSingleton } from "@/lib/singleton";

/** Sessions remembered at most; a full map forgets the least recently answered first. */
export const MAX_SESSIONS = 50_000;

/** The headers that name a session, first found wins (Claude Code, Codex new and old, OpenCode). */
const SESSION_HEADERS = [
  "x-claude-code-session-id",
  "session-id",
  "thread-id",
  "session_id",
  "conversation_id",
  "x-session-affinity",
  "x-session-id",
] as const;

type Entry = { channelId: number; expiresAt: number };

// A Map keeps insertion order: re-inserting an entry on every answer makes its first key the
// least recently answered, which is the one a full map drops.
const entries = processSingleton("sessionSticky", () => new Map<string, Entry>());

/** One call's session: its key in the map and the short hash the log row shows. */
export class StickySession {
  constructor(
    readonly key: string,
    /** The first 8 hex digits of the session name's SHA-256: enough to tell sessions apart in logs. */
    readonly tag: string,
    readonly ttlMs: number,
  ) {}
}

/**
 * The call's session, or null when stickiness is off (TTL 0), the key pins a channel, or the
 * caller names no session. Costs three header reads when there is none.
 */
export function sessionOf(ctx: CallContext): StickySession | null {
  const ttl = ctx.options.SessionStickyTTLSeconds;
  if (!(ttl > 0) || ctx.caller.pinnedChannelId !== null) return null;
  const name = sessionName(ctx);
  if (name === null) return null;
  const hash = createHash("sha256").update(name).digest("hex");
  const key = `${ctx.caller.user.id}\n${ctx.caller.group}\n${ctx.body.model}\n${hash}`;
  return new StickySession(key, hash.slice(0, 8), ttl * 1000);
}

function sessionName(ctx: CallContext): string | null {
  for (const header of SESSION_HEADERS) {
    const value = ctx.req.headers.get(header);
    if (value) return value;
  }
  // The caller's own body: the Responses or Anthropic request as it came, chat's as parsed.
  const body = ctx.inbound ? ctx.inbound.info.request : ctx.body.json;
  if (!body) return null;
  if (typeof body.prompt_cache_key === "string" && body.prompt_cache_key !== "") return body.prompt_cache_key;
  if (ctx.inbound?.protocol.name === "anthropic" && isObj(body.metadata)) {
    const user = body.metadata.user_id;
    if (typeof user === "string" && user !== "") return user;
  }
  return null;
}

/** The channel the session's last answer came from, while its TTL runs; else null. */
export function stickyChannelId(session: StickySession, now = Date.now()): number | null {
  const entry = entries.get(session.key);
  if (!entry) return null;
  if (entry.expiresAt > now) return entry.channelId;
  entries.delete(session.key);
  return null;
}

/** The channel that answered: the session's next calls go there first. */
export function rememberChannel(session: StickySession, channelId: number, now = Date.now()): void {
  entries.delete(session.key);
  entries.set(session.key, { channelId, expiresAt: now + session.ttlMs });
  if (entries.size > MAX_SESSIONS) {
    const oldest = entries.keys().next();
    if (!oldest.done) entries.delete(oldest.value);
  }
}

/** The session's channel failed: its next call is routed as any other until another answers. */
export function forgetChannel(session: StickySession, channelId: number): void {
  if (entries.get(session.key)?.channelId === channelId) entries.delete(session.key);
}

/** Sessions remembered now (tests read it to see the bound hold). */
export function rememberedSessions(): number {
  return entries.size;
}
