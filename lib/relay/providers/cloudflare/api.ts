// What Workers AI's `ai/run/{model}` sends back, the fields the converters read: a text
// generation's `{result: {response, usage}}` (and its stream events `{response, usage?}`), and a
// speech-to-text model's `{result: {text, vtt, words, segments, transcription_info}}`.
import { z } from "zod";
import { maybe, type Unchecked } from "../wire";

/** `{result: {…}}`: a result that is no object reads as an empty one. */
const run = <T extends z.ZodRawShape>(result: T) =>
  z.object({ result: z.object(result).loose().catch(z.object(result).loose().parse({})) }).loose();

export const RunCompletion = run({
  response: maybe(z.string()),
  // Read by cloudflareUsage, which the stream shares.
  usage: z.unknown().optional(),
});

export const RunTranscription = run({
  text: maybe(z.string()),
  vtt: maybe(z.string()),
  words: maybe(z.array(z.unknown())),
  segments: maybe(z.array(z.unknown())),
  transcription_info: maybe(z.object({ language: z.unknown().optional(), duration: z.unknown().optional() }).loose()),
});

/** A text generation's stream event. Not run per event (see ../wire.ts). */
export const RunCompletionEvent = z.object({ response: z.string(), usage: z.unknown().optional() }).loose();
export type RunEvent = Unchecked<z.output<typeof RunCompletionEvent>>;
