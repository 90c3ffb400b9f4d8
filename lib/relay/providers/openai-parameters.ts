// The request parameters an OpenAI-protocol vendor takes, translated from the canonical body on
// the way up: the output cap within the model's limit and under the name the model takes, and
// what the vendor would refuse left out and named (UpstreamRequest.dropped). The canonical body
// may come from another caller protocol (Gemini's topK, Anthropic's thinking), so it can hold
// what no OpenAI model takes; a direct OpenAI caller's body goes through the same rules, since
// each one only removes what the vendor would answer with a 400 (see below for the two that
// depend on where the request came from).
//
// OpenAI's rules (https://platform.openai.com/docs/guides/reasoning, checked on its API reference):
// - Reasoning models (o1, o3, o4-mini, gpt-5 and its dated and .x versions; not the -chat ones,
//   which answer like gpt-4o) refuse `max_tokens` ("Use 'max_completion_tokens' instead") and any
//   `temperature` or `top_p` but the default 1.
// - Every model refuses a parameter it does not know (`top_k`: "Unrecognized request argument"),
//   and a model that does not reason refuses `reasoning_effort`. Those two are left out only of a
//   converted request (BuildRequestInput.converted), where they came from another protocol: an
//   OpenAI channel's base URL may be an OpenAI-compatible server that takes them, and a direct
//   caller who sends them means them for it.
// Azure serves the same models under deployment names, which are the model names by convention.
// Mistral refuses unknown fields too (422 extra_forbidden) and has no `reasoning_effort`.
import { DELETE, KEEP, type JsonBodyView, type JsonEdit } from "../request/json-body";
import { channelOutputLimit, clampOutputTokens } from "./output-limit";
import type { BuildRequestInput } from "./types";

/** How strictly a vendor reads the body (a field of OpenAICompatibleSpec). */
export type ParameterPolicy =
  /** OpenAI's own models (OpenAI, Azure): OpenAI's rules above, unknown fields refused. */
  | "openai"
  /** The vendor refuses fields it does not know (Mistral): a converted request's `top_k` and `reasoning_effort` go. */
  | "strict"
  /** The vendor ignores what it does not know (most OpenAI-compatible servers): only the clamp. */
  | "lenient";

/**
 * OpenAI's reasoning models, by the name after any routing prefix ("openai/o3"): the o-series and
 * gpt-5 (gpt-5, gpt-5-mini, gpt-5.1…), without the -chat variants.
 */
export function isOpenAIReasoningModel(model: string): boolean {
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  if (/^gpt-5(\.\d+)?-chat/.test(name)) return false;
  return /^o\d/.test(name) || /^gpt-5/.test(name);
}

/** A sampling setting a reasoning model refuses: present and not the default 1. */
const notDefault = (value: unknown) => value !== undefined && value !== null && value !== 1;

/**
 * The canonical effort as the model takes it: the o-series know only low, medium and high, so
 * "none" and "minimal" (a caller that turned thinking off) become their least, "low"; gpt-5
 * before 5.1 knows "minimal" but not "none".
 */
function effortFor(model: string, effort: unknown): unknown {
  if (effort !== "none" && effort !== "minimal") return KEEP;
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  if (/^o\d/.test(name)) return "low";
  if (effort === "none" && /^gpt-5(?![.\d])/.test(name)) return "minimal";
  return KEEP;
}

/**
 * The body edits for `input` under `policy`, and the list the edits fill with what they left out
 * (filled while buildBody applies them, so read it after).
 */
export function parameterEdits(input: BuildRequestInput, policy: ParameterPolicy): { edits: Record<string, JsonEdit>; dropped: string[] } {
  const dropped: string[] = [];
  const edits: Record<string, JsonEdit> = {};
  if (input.mode !== "chat" && input.mode !== "completions") return { edits, dropped };
  const model = input.upstreamModel;
  const limit = channelOutputLimit(input.channel, model);
  const clamp = (cur: unknown) => {
    const next = clampOutputTokens(cur, limit);
    return next === cur ? KEEP : next;
  };
  // The patch may run an edit more than once (a scan, then the fallback parse): named once.
  const drop = (name: string) => (_cur: unknown, present: boolean) => {
    if (!present) return KEEP;
    if (!dropped.includes(name)) dropped.push(name);
    return DELETE;
  };
  const reasons = policy === "openai" && isOpenAIReasoningModel(model);
  if (reasons) {
    // The cap goes under the name the model takes: the caller's own max_completion_tokens, else
    // its max_tokens renamed; either way within the limit.
    edits.max_completion_tokens = (cur: unknown, present: boolean, body: JsonBodyView) => {
      const asked = present ? cur : body.get("max_tokens");
      if (typeof asked !== "number") return KEEP;
      const next = clampOutputTokens(asked, limit);
      return present && next === cur ? KEEP : next;
    };
    edits.max_tokens = (_cur: unknown, present: boolean) => (present ? DELETE : KEEP);
    for (const name of ["temperature", "top_p"]) {
      const dropIt = drop(name);
      edits[name] = (cur: unknown, present: boolean) => (notDefault(cur) ? dropIt(cur, present) : KEEP);
    }
    edits.reasoning_effort = (cur: unknown) => effortFor(model, cur);
  } else if (limit !== null) {
    edits.max_tokens = clamp;
    edits.max_completion_tokens = clamp;
  }
  if (policy !== "lenient" && input.converted) {
    edits.top_k = drop("top_k");
    if (!reasons) edits.reasoning_effort = drop("reasoning_effort");
  }
  return { edits, dropped };
}
