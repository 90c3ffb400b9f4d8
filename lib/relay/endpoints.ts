// The relay's endpoint table: the one list of the paths the relay answers, each with its mode and
// the model assumed when the body names none. Everything that needs a relay path reads it here:
// the pipeline's dispatch (pipeline.ts), the relay worker's split between relay and console
// (isRelayPath), OpenAI's upstream path per mode (providers/openai-compatible.ts) and the channel
// test. Next's own files cannot import it (proxy.ts's matcher must be a literal, app/ routes are
// folders): lib/relay/endpoints.test.ts holds them to this table.
import type { RelayMode } from "@/lib/relay/types";

export type RelayEndpoint = { mode: RelayMode; defaultModel: string };

/** OpenAI's path for each mode: what a client calls, and what an OpenAI-protocol upstream is sent. */
export const OPENAI_PATHS: Readonly<Record<RelayMode, string>> = {
  chat: "/v1/chat/completions",
  completions: "/v1/completions",
  embeddings: "/v1/embeddings",
  moderations: "/v1/moderations",
  images: "/v1/images/generations",
  speech: "/v1/audio/speech",
  transcriptions: "/v1/audio/transcriptions",
  translations: "/v1/audio/translations",
  rerank: "/v1/rerank",
};

/** The console playground: chat completions with the console session instead of an API key. */
export const PLAYGROUND_PATH = "/pg/chat/completions";

/** POST path → mode and the model assumed when the body names none. */
export const ROUTES: Readonly<Record<string, RelayEndpoint>> = {
  [OPENAI_PATHS.chat]: { mode: "chat", defaultModel: "" },
  [OPENAI_PATHS.completions]: { mode: "completions", defaultModel: "" },
  [OPENAI_PATHS.embeddings]: { mode: "embeddings", defaultModel: "" },
  [OPENAI_PATHS.moderations]: { mode: "moderations", defaultModel: "text-moderation-latest" },
  [OPENAI_PATHS.images]: { mode: "images", defaultModel: "dall-e-2" },
  [OPENAI_PATHS.speech]: { mode: "speech", defaultModel: "tts-1" },
  [OPENAI_PATHS.transcriptions]: { mode: "transcriptions", defaultModel: "whisper-1" },
  [OPENAI_PATHS.translations]: { mode: "translations", defaultModel: "whisper-1" },
  [OPENAI_PATHS.rerank]: { mode: "rerank", defaultModel: "" },
  [PLAYGROUND_PATH]: { mode: "chat", defaultModel: "gpt-4o-mini" },
};

/** The legacy embeddings path, `/v1/engines/{model}/embeddings`: the model is in the path. */
export const ENGINE_EMBEDDINGS = /^\/v1\/engines\/([^/]+)\/embeddings$/;

/** The model list: `GET /v1/models` and `GET /v1/models/{id}`. */
export const MODELS_PATH = "/v1/models";
/** One model: `/v1/models/{id}`. */
export const MODEL_PREFIX = "/v1/models/";

/** OpenAI's billing dashboard some clients show (call/models-and-billing.ts). */
export const BILLING_PATH = /^(\/v1)?\/dashboard\/billing\/(subscription|usage)$/;

/**
 * OpenAI endpoints Qiao does not serve: a clean 501 rather than a confusing 404. `POST /v1/responses`
 * is served (inbound/responses); what reads a stored response (`/v1/responses/{id}`…) is not, as
 * Qiao stores none.
 */
export const NOT_IMPLEMENTED =
  /^\/v1\/((files|fine-tunes|fine_tuning|assistants|threads|batches|uploads|vector_stores|images\/(edits|variations)|edits|realtime)(\/|$)|responses\/)/;

/**
 * The task routes outside /v1 (lib/tasks): Midjourney's `/mj/…` and `/{mode}/mj/…`, and Suno's
 * `/suno/…` (OpenAI's video routes are under /v1). The mode is a speed, as a Midjourney proxy
 * names it: fast, relax, turbo, or with new-api's `mj-` prefix. (Any first segment would also
 * take the console's `/api/mj/…`.)
 */
export const MJ_MODE = "(?:mj-)?(?:fast|relax|turbo)";
export const TASK_PATH = new RegExp(`^/(?:${MJ_MODE}/)?mj/|^/suno/`);

/** Paths the relay core answers; everything else belongs to Next. */
export function isRelayPath(path: string): boolean {
  return (
    path.startsWith("/v1/") ||
    path === "/v1" ||
    path.startsWith("/v1beta/") ||
    path.startsWith("/dashboard/billing/") ||
    path === PLAYGROUND_PATH ||
    TASK_PATH.test(path)
  );
}
