import { describe, expect, it } from "vitest";
import { unknownEventCounts } from "../unknown-events";
import { RunCompletionEvent } from "./api";
import { runCompletionEventToOpenAI, runCompletionToOpenAI, runTranscriptionToOpenAI } from "./convert-response";

const ctx = { id: "cmpl-1", created: 1700000000, model: "@cf/meta/llama-3-8b-instruct" };

describe("Workers AI ai/run stream events", () => {
  it("an event the converter does not know is counted, and the stream still ends with its usage", () => {
    const before = unknownEventCounts().get("cloudflare:no-response") ?? 0;
    const recorded = [
      { response: "Once" },
      { p: "abc" },
      { response: " upon", p: "de" },
      { response: "", usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
    ];
    const chunks = recorded.map((e) => runCompletionEventToOpenAI(e, ctx));
    expect(unknownEventCounts().get("cloudflare:no-response")).toBe(before + 1);
    expect(chunks[1]).toBeNull();
    expect(chunks.map((c) => (c?.choices as { text: string }[] | undefined)?.[0]?.text ?? null)).toEqual(["Once", null, " upon", null]);
    expect(chunks.at(-1)).toMatchObject({ object: "text_completion", choices: [], usage: { total_tokens: 5 } });
    // An empty piece is a known event: skipped, not counted.
    expect(runCompletionEventToOpenAI({ response: "" }, ctx)).toBeNull();
    expect(unknownEventCounts().get("cloudflare:no-response")).toBe(before + 1);
    expect(recorded.filter((e) => RunCompletionEvent.safeParse(e).success)).toHaveLength(3);
  });
});

describe("Workers AI ai/run answers", () => {
  it("read what they hold, and an odd result as an empty one", () => {
    expect(runCompletionToOpenAI({ result: { response: 7 } }, ctx)).toMatchObject({ choices: [{ text: "" }] });
    expect(runCompletionToOpenAI([], ctx)).not.toHaveProperty("usage");
    const verbose = runTranscriptionToOpenAI(
      { result: { text: "hi", transcription_info: { language: "en", duration: 1.5 }, words: [{ word: "hi", start: 0, end: 1 }] } },
      "verbose_json",
    );
    expect(JSON.parse(verbose.body)).toEqual({
      task: "transcribe",
      language: "en",
      duration: 1.5,
      text: "hi",
      words: [{ word: "hi", start: 0, end: 1 }],
    });
    expect(JSON.parse(runTranscriptionToOpenAI({ result: "x" }, "verbose_json").body)).toEqual({
      task: "transcribe",
      language: null,
      duration: null,
      text: "",
    });
  });
});
