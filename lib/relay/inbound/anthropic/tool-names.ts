// Tool names: Anthropic allows up to 128 characters (Claude Code's MCP tools run long, e.g.
// `mcp__server__tool`), OpenAI's function names at most 64. A longer name goes upstream
// shortened, its head plus a hash of the whole (so two long names sharing a head stay apart),
// and comes back to the caller as it was: the encoders look it up in the caller's own tools.

/** OpenAI's longest function name. */
export const MAX_TOOL_NAME = 64;
const HASH_CHARS = 8;

/** 32-bit FNV-1a of a string, as 8 hex digits. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(HASH_CHARS, "0");
}

/** The name the upstream sees: the caller's, or for one over 64 characters its head and hash. */
export function upstreamToolName(name: string): string {
  if (name.length <= MAX_TOOL_NAME) return name;
  return `${name.slice(0, MAX_TOOL_NAME - HASH_CHARS - 1)}_${fnv1a(name)}`;
}

/** Maps an upstream tool name back to the caller's, from the caller's request body. */
export function callerToolNames(request: Record<string, unknown>): (name: string) => string {
  const long = new Map<string, string>();
  const add = (name: unknown) => {
    if (typeof name === "string" && name.length > MAX_TOOL_NAME) long.set(upstreamToolName(name), name);
  };
  if (Array.isArray(request.tools)) {
    for (const t of request.tools) if (typeof t === "object" && t !== null) add((t as { name?: unknown }).name);
  }
  if (long.size === 0) return (name) => name;
  return (name) => long.get(name) ?? name;
}
