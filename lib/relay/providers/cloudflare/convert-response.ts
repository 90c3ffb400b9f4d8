// Workers AI `ai/run` answers → OpenAI shapes. Pure (ids and timestamps come from the caller).
import { isObj, type Obj } from "@/lib/obj";
import { countUnknownEvent } from "../unknown-events";
import { openAIUsage } from "../convert-shared";
import { RunCompletion, type RunEvent, RunTranscription } from "./api";

export interface RunContext {
  id: string;
  created: number;
  model: string;
}

/** Cloudflare's `usage` (already OpenAI's field names) through the one builder. */
function cloudflareUsage(u: unknown): Obj | undefined {
  if (!isObj(u)) return undefined;
  const p = typeof u.prompt_tokens === "number" ? u.prompt_tokens : 0;
  const c = typeof u.completion_tokens === "number" ? u.completion_tokens : 0;
  return openAIUsage(p, c, typeof u.total_tokens === "number" ? u.total_tokens : undefined);
}

/** `{result:{response, usage}}` → a `text_completion`. */
export function runCompletionToOpenAI(upstream: unknown, ctx: RunContext): Obj {
  const parsed = RunCompletion.safeParse(upstream);
  const r = parsed.success ? parsed.data.result : {};
  const out: Obj = {
    id: ctx.id,
    object: "text_completion",
    created: ctx.created,
    model: ctx.model,
    choices: [{ text: r.response ?? "", index: 0, logprobs: null, finish_reason: "stop" }],
  };
  const usage = cloudflareUsage(r.usage);
  if (usage) out.usage = usage;
  return out;
}

/** One streamed `{response: "…", usage?}` event → a `text_completion` chunk. */
export function runCompletionEventToOpenAI(event: unknown, ctx: RunContext): Obj | null {
  if (!isObj(event)) {
    countUnknownEvent("cloudflare", "non-object");
    return null;
  }
  const data: RunEvent = event;
  const text = typeof data.response === "string" ? data.response : "";
  const usage = cloudflareUsage(data.usage);
  if (text === "" && !usage) {
    // An empty piece is known; an event with neither text nor usage is not.
    if (typeof data.response !== "string") countUnknownEvent("cloudflare", "no-response");
    return null;
  }
  const chunk: Obj = {
    id: ctx.id,
    object: "text_completion",
    created: ctx.created,
    model: ctx.model,
    choices: usage && text === "" ? [] : [{ text, index: 0, logprobs: null, finish_reason: null }],
  };
  if (usage) chunk.usage = usage;
  return chunk;
}

function vttToSrt(vtt: string): string {
  const cues = vtt
    .replace(/^WEBVTT[^\n]*\n+/, "")
    .split(/\r?\n\r?\n/)
    .map((c) => c.trim())
    .filter((c) => c.includes("-->"));
  return cues
    .map((cue, i) => {
      const lines = cue.split(/\r?\n/);
      const t = lines.findIndex((l) => l.includes("-->"));
      const timing = lines[t]
        .replace(/(\d\d:\d\d)\.(\d\d\d)/g, "$1,$2")
        .replace(/^(\d\d:\d\d,\d\d\d)/, "00:$1")
        .replace(/--> (\d\d:\d\d,\d\d\d)/, "--> 00:$1");
      return `${i + 1}\n${timing}\n${lines.slice(t + 1).join("\n")}`;
    })
    .join("\n\n")
    .concat(cues.length > 0 ? "\n" : "");
}

/** `{result:{text, words, vtt}}` → the client's `response_format`. */
export function runTranscriptionToOpenAI(upstream: unknown, format: string | undefined): { body: string; contentType: string } {
  const parsed = RunTranscription.safeParse(upstream);
  const r = parsed.success ? parsed.data.result : {};
  const text = r.text ?? "";
  const vtt = r.vtt ?? "";
  switch ((format ?? "json").toLowerCase()) {
    case "text":
      return { body: text, contentType: "text/plain; charset=utf-8" };
    case "vtt":
      return { body: vtt, contentType: "text/vtt; charset=utf-8" };
    case "srt":
      return { body: vttToSrt(vtt), contentType: "application/x-subrip; charset=utf-8" };
    case "verbose_json": {
      const info = r.transcription_info;
      const body: Obj = { task: "transcribe", language: info?.language ?? null, duration: info?.duration ?? null, text };
      if (r.words) body.words = r.words;
      if (r.segments) body.segments = r.segments;
      return { body: JSON.stringify(body), contentType: "application/json" };
    }
    default:
      return { body: JSON.stringify({ text }), contentType: "application/json" };
  }
}
